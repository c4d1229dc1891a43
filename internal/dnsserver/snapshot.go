package dnsserver

import (
	"strings"

	"github.com/miekg/dns"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// snapshot is the complete, immutable state of one view: every zone with its SOA and NS, and every
// name with its record sets. Readers load it through an atomic pointer and never lock; writers build
// a new one (sharing the nodes they did not touch) and swap it in whole.
type snapshot struct {
	serial uint32
	zones  []*zone   // longest name first, so the first suffix match is the closest zone
	names  nameIndex // canonical FQDN → node; every apex is present
}

// zone is one zone of a snapshot with its synthesised SOA and NS records.
type zone struct {
	name   string
	soa    *dns.SOA // TTL: the configured default TTL
	negSOA *dns.SOA // the same SOA with TTL min(TTL, MINIMUM), for negative answers (RFC 2308)
	ns     []dns.RR
}

// node is one owner name. A node with no record sets is an empty non-terminal: it exists because
// names below it hold data, so a query for it is NODATA, not NXDOMAIN (RFC 8020), and wildcards above
// it do not apply to it (RFC 4592).
type node struct {
	name    string  // canonical FQDN
	static  []rrset // from zone files, never changed by Update
	dynamic []rrset // written through Update
	merged  []rrset // static then dynamic; what queries see
	// below counts the names with data strictly below this one (in the same zone).
	below int
}

// rrset is the records of one type at one name.
type rrset struct {
	typ uint16
	rrs []dns.RR
}

func (n *node) hasData() bool { return len(n.merged) > 0 }

// get returns the records of a type, or nil.
func (n *node) get(t uint16) []dns.RR {
	for i := range n.merged {
		if n.merged[i].typ == t {
			return n.merged[i].rrs
		}
	}
	return nil
}

// remerge recomputes merged from static and dynamic.
func (n *node) remerge() {
	n.merged = make([]rrset, 0, len(n.static)+len(n.dynamic))
	n.merged = append(n.merged, n.static...)
	n.merged = append(n.merged, n.dynamic...)
}

// zoneOf returns the closest zone containing a canonical name, or nil.
func (s *snapshot) zoneOf(name string) *zone {
	for _, z := range s.zones {
		if inZone(name, z.name) {
			return z
		}
	}
	return nil
}

// inZone reports whether a canonical name is the zone apex or below it (on a label boundary).
func inZone(name, zone string) bool { return endpoint.InDomain(name, zone) }

// parent returns the name without its first label ("a.b.c." → "b.c.").
func parent(name string) string {
	i := strings.IndexByte(name, '.')
	if i < 0 || i == len(name)-1 {
		return "."
	}
	return name[i+1:]
}

// newZone builds a zone with its SOA and NS for a serial.
func newZone(cfg *Config, name string, serial uint32) *zone {
	nsNames := cfg.NameServers
	if len(nsNames) == 0 {
		nsNames = []string{"ns1." + name}
	}
	mname := cfg.SOA.MName
	if mname == "" {
		mname = nsNames[0]
	}
	rname := cfg.SOA.RName
	if rname == "" {
		rname = "hostmaster." + name
	}
	soa := &dns.SOA{
		Hdr:     dns.RR_Header{Name: name, Rrtype: dns.TypeSOA, Class: dns.ClassINET, Ttl: cfg.DefaultTTL},
		Ns:      mname,
		Mbox:    rname,
		Serial:  serial,
		Refresh: seconds(cfg.SOA.Refresh),
		Retry:   seconds(cfg.SOA.Retry),
		Expire:  seconds(cfg.SOA.Expire),
		Minttl:  seconds(cfg.SOA.Minimum),
	}
	neg := *soa
	neg.Hdr.Ttl = min(soa.Hdr.Ttl, soa.Minttl)
	z := &zone{name: name, soa: soa, negSOA: &neg}
	for _, n := range nsNames {
		z.ns = append(z.ns, &dns.NS{Hdr: dns.RR_Header{Name: name, Rrtype: dns.TypeNS, Class: dns.ClassINET, Ttl: cfg.DefaultTTL}, Ns: n})
	}
	return z
}

// withSerial returns a copy of the zone with a new serial.
func (z *zone) withSerial(serial uint32) *zone {
	soa := *z.soa
	soa.Serial = serial
	neg := *z.negSOA
	neg.Serial = serial
	return &zone{name: z.name, soa: &soa, negSOA: &neg, ns: z.ns}
}
