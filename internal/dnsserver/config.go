package dnsserver

import (
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/miekg/dns"
)

// Config describes what the server serves and to whom. Zones and views are fixed for the life of a
// Server; the records inside them change through Update.
type Config struct {
	// Listen are the addresses to serve on, UDP and TCP each ("127.0.0.1:5353"). Port 0 picks a free
	// port shared by UDP and TCP; Server.Addrs reports it.
	Listen []string
	// Zones the server is authoritative for ("example.com"). Every view serves every zone; a query for
	// a name outside all of them is REFUSED.
	Zones []string
	// Views split the clients by source address. A client is served by the view with the longest
	// prefix that contains its address; a client no view matches is served by DefaultView.
	Views []ViewConfig
	// DefaultView names the view for every other client ("default" when empty). It may also appear in
	// Views with subnets of its own.
	DefaultView string
	// UseClientSubnet selects the view by the EDNS0 client-subnet option (RFC 7871) when a query
	// carries one, instead of by the source address. Only turn it on when every client that can send
	// the option is trusted (a resolver of your own): anyone else could pick a view by sending it.
	UseClientSubnet bool
	// SOA is the start of authority of every zone.
	SOA SOAConfig
	// NameServers are the NS records of every zone apex (host names; default "ns1.<zone>").
	NameServers []string
	// ZoneFiles hold static records (RFC 1035 master files) served beside the dynamic ones.
	ZoneFiles []ZoneFile
	// TSIGKeys maps a TSIG key name to its base64 secret; AXFR requests must be signed with one.
	TSIGKeys map[string]string
	// AXFR lists who may transfer the zones: a client subnet and the key it must sign with.
	AXFR []AXFRAllow
	// TSIGAlgorithms maps a key name to its algorithm, for signing NOTIFY (default hmac-sha256).
	TSIGAlgorithms map[string]string
	// Notify lists the secondaries told of every change (RFC 1996).
	Notify []NotifyTarget
	// MaxUDPSize caps the size of a UDP answer (and is the EDNS0 payload size the server advertises).
	// Default 1232, the DNS flag day 2020 value; a client that asks for less gets less.
	MaxUDPSize int
	// DefaultTTL is the TTL of the apex NS records and of the SOA record itself (default 300).
	DefaultTTL uint32
}

// ViewConfig is one view: a name and the client subnets it serves.
type ViewConfig struct {
	Name    string
	Subnets []netip.Prefix
}

// SOAConfig are the SOA fields of every zone. The serial is not configured: it starts at the Unix time
// of the server's start and grows by one with every change of a view.
type SOAConfig struct {
	MName   string        // primary name server (default: the first of NameServers)
	RName   string        // mailbox of the person responsible, in SOA form (default "hostmaster.<zone>")
	Refresh time.Duration // default 1h
	Retry   time.Duration // default 10m
	Expire  time.Duration // default 14d
	// Minimum is the negative-caching TTL (RFC 2308): how long NXDOMAIN and NODATA answers are kept.
	// Default 30s, so a name that is created shortly after a miss appears quickly.
	Minimum time.Duration
}

// ZoneFile is a master file of static records.
type ZoneFile struct {
	Path string
	// Origin is the $ORIGIN the file starts with (optional when every name is absolute or the file
	// sets $ORIGIN itself).
	Origin string
	// View the records belong to; empty for every view.
	View string
}

// AXFRAllow admits zone transfers from clients in Subnet that sign their request with Key.
type AXFRAllow struct {
	Subnet netip.Prefix
	Key    string
}

const (
	defaultViewName   = "default"
	defaultMaxUDPSize = 1232
	defaultTTL        = 300
)

// normalized returns the config with defaults filled in and names in canonical form (lower case,
// fully qualified), or an error naming the field that is wrong.
func (c Config) normalized() (Config, error) {
	out := c
	if len(c.Zones) == 0 {
		return out, fmt.Errorf("zones: at least one zone is required")
	}
	out.Zones = nil
	seen := map[string]bool{}
	for _, z := range c.Zones {
		n, err := canonicalName(z)
		if err != nil {
			return out, fmt.Errorf("zones: %q: %v", z, err)
		}
		if n == "." {
			return out, fmt.Errorf("zones: the root zone cannot be served")
		}
		if !seen[n] {
			seen[n] = true
			out.Zones = append(out.Zones, n)
		}
	}
	if out.DefaultView == "" {
		out.DefaultView = defaultViewName
	}
	out.Views = nil
	views := map[string]bool{}
	for i, v := range c.Views {
		if v.Name == "" {
			return out, fmt.Errorf("views[%d]: empty name", i)
		}
		if views[v.Name] {
			return out, fmt.Errorf("views[%d]: view %q is listed twice", i, v.Name)
		}
		views[v.Name] = true
		nv := ViewConfig{Name: v.Name}
		for j, p := range v.Subnets {
			if !p.IsValid() {
				return out, fmt.Errorf("views[%d] (%s): subnets[%d] is not a valid prefix", i, v.Name, j)
			}
			nv.Subnets = append(nv.Subnets, p.Masked())
		}
		out.Views = append(out.Views, nv)
	}
	if !views[out.DefaultView] {
		out.Views = append(out.Views, ViewConfig{Name: out.DefaultView})
	}
	for i, f := range c.ZoneFiles {
		if f.Path == "" {
			return out, fmt.Errorf("zoneFiles[%d]: empty path", i)
		}
		if f.View != "" && !views[f.View] && f.View != out.DefaultView {
			return out, fmt.Errorf("zoneFiles[%d] (%s): unknown view %q", i, f.Path, f.View)
		}
	}
	out.TSIGKeys = map[string]string{}
	for name, secret := range c.TSIGKeys {
		if secret == "" {
			return out, fmt.Errorf("tsigKeys: key %q has an empty secret", name)
		}
		out.TSIGKeys[dns.CanonicalName(name)] = secret
	}
	out.AXFR = nil
	for i, a := range c.AXFR {
		if !a.Subnet.IsValid() {
			return out, fmt.Errorf("axfr[%d]: subnet is not a valid prefix", i)
		}
		k := dns.CanonicalName(a.Key)
		if _, ok := out.TSIGKeys[k]; !ok {
			return out, fmt.Errorf("axfr[%d]: key %q is not among the TSIG keys", i, a.Key)
		}
		out.AXFR = append(out.AXFR, AXFRAllow{Subnet: a.Subnet.Masked(), Key: k})
	}
	out.TSIGAlgorithms = map[string]string{}
	for name, alg := range c.TSIGAlgorithms {
		out.TSIGAlgorithms[dns.CanonicalName(name)] = alg
	}
	var err error
	if out.Notify, err = normalizeNotify(c.Notify, out.TSIGKeys, out.TSIGAlgorithms); err != nil {
		return out, err
	}
	out.NameServers = nil
	for i, ns := range c.NameServers {
		n, err := canonicalName(ns)
		if err != nil {
			return out, fmt.Errorf("nameServers[%d]: %q: %v", i, ns, err)
		}
		out.NameServers = append(out.NameServers, n)
	}
	if out.MaxUDPSize == 0 {
		out.MaxUDPSize = defaultMaxUDPSize
	}
	if out.MaxUDPSize < 512 || out.MaxUDPSize > dns.MaxMsgSize {
		return out, fmt.Errorf("maxUDPSize: %d is outside 512..%d", out.MaxUDPSize, dns.MaxMsgSize)
	}
	if out.DefaultTTL == 0 {
		out.DefaultTTL = defaultTTL
	}
	s := &out.SOA
	if s.MName != "" {
		n, err := canonicalName(s.MName)
		if err != nil {
			return out, fmt.Errorf("soa.mname: %q: %v", s.MName, err)
		}
		s.MName = n
	}
	if s.RName != "" {
		n, err := canonicalName(s.RName)
		if err != nil {
			return out, fmt.Errorf("soa.rname: %q: %v", s.RName, err)
		}
		s.RName = n
	}
	setDefault(&s.Refresh, time.Hour)
	setDefault(&s.Retry, 10*time.Minute)
	setDefault(&s.Expire, 14*24*time.Hour)
	setDefault(&s.Minimum, 30*time.Second)
	if len(out.Listen) == 0 {
		return out, fmt.Errorf("listen: at least one address is required")
	}
	return out, nil
}

func setDefault(d *time.Duration, v time.Duration) {
	if *d <= 0 {
		*d = v
	}
}

// canonicalName lower-cases and fully qualifies a domain name and checks its syntax.
func canonicalName(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", fmt.Errorf("empty name")
	}
	n := dns.CanonicalName(s)
	if _, ok := dns.IsDomainName(n); !ok {
		return "", fmt.Errorf("not a valid domain name")
	}
	return n, nil
}

// seconds converts a duration to whole seconds for an SOA field.
func seconds(d time.Duration) uint32 { return uint32(d / time.Second) }
