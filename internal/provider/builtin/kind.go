package builtin

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/netip"
	"strings"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/dnsserver"
	"github.com/zonekeeper/zonekeeper/internal/flagvalue"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// BuiltinFlags are --provider=builtin's settings: zonekeeper's own DNS server.
type BuiltinFlags struct {
	BuiltinListen          []string
	BuiltinZones           []string
	BuiltinNS              []string
	BuiltinSOARName        string
	BuiltinSOAMinimum      time.Duration
	BuiltinZoneFiles       []string
	BuiltinTSIGKeyFile     string
	BuiltinAXFRAllow       []string
	BuiltinNotify          []string
	BuiltinMaxUDPSize      int
	BuiltinUseClientSubnet bool
}

// Kind is --provider=builtin: zonekeeper answers DNS itself, one server view per zonekeeper view
// (chosen by --view-subnets).
func (s *BuiltinFlags) Kind() provider.Kind {
	return provider.Kind{
		Name: "builtin", Summary: "zonekeeper answers DNS itself",
		Defaults: func() {
			*s = BuiltinFlags{BuiltinListen: []string{":5353"}, BuiltinSOAMinimum: 30 * time.Second, BuiltinMaxUDPSize: 1232}
		},
		Flags:            s.bind,
		Zones:            func() []string { return s.BuiltinZones },
		NoLeaderElection: "every replica answers DNS from the records it reconciles itself, so every replica must reconcile; run the replicas without --leader-elect",
		NoPlan:           "keeps its records in the running zonekeeper only: there is nothing to compare with",
		New: func(ctx context.Context, env provider.Env) (func(provider.View) (provider.Provider, error), error) {
			srv, err := s.start(ctx, env)
			if err != nil {
				return nil, err
			}
			return func(v provider.View) (provider.Provider, error) {
				p, err := New(srv, serverView(v))
				if err != nil {
					return nil, fmt.Errorf("--provider=builtin: %w", err)
				}
				return p, nil
			}, nil
		},
	}
}

func (s *BuiltinFlags) bind(fs *flag.FlagSet) {
	flagvalue.BindList(fs, &s.BuiltinListen, "builtin-listen", "address the built-in DNS server serves on, UDP and TCP (repeatable; port 53 needs NET_BIND_SERVICE)")
	flagvalue.BindList(fs, &s.BuiltinZones, "builtin-zone", "zone the built-in server is authoritative for (repeatable; default: the --domain-filter values)")
	flagvalue.BindList(fs, &s.BuiltinNS, "builtin-ns", "NS host name of every zone apex (repeatable; default ns1.<zone>)")
	fs.StringVar(&s.BuiltinSOARName, "builtin-soa-rname", s.BuiltinSOARName, "SOA mailbox (default hostmaster.<zone>)")
	fs.DurationVar(&s.BuiltinSOAMinimum, "builtin-soa-minimum", s.BuiltinSOAMinimum, "negative-caching TTL of NXDOMAIN and NODATA answers")
	flagvalue.BindList(fs, &s.BuiltinZoneFiles, "builtin-zone-file", "[VIEW=]PATH: master file of static records served beside zonekeeper's (repeatable)")
	fs.StringVar(&s.BuiltinTSIGKeyFile, "builtin-tsig-key-file", s.BuiltinTSIGKeyFile, "tsig-keygen key file(s) for AXFR")
	flagvalue.BindList(fs, &s.BuiltinAXFRAllow, "builtin-axfr-allow", "CIDR=KEYNAME: secondaries allowed to transfer the zones, signing with the key (repeatable)")
	flagvalue.BindList(fs, &s.BuiltinNotify, "builtin-notify", "IP[:PORT][=KEYNAME]: secondary sent a NOTIFY after every change, signed with the key if given (repeatable)")
	fs.IntVar(&s.BuiltinMaxUDPSize, "builtin-max-udp-size", s.BuiltinMaxUDPSize, "largest UDP answer; larger ones are truncated and retried over TCP")
	fs.BoolVar(&s.BuiltinUseClientSubnet, "builtin-use-client-subnet", s.BuiltinUseClientSubnet, "pick the view by the EDNS client-subnet option (only behind a trusted resolver)")
}

// serverView is the server view a zonekeeper view writes to.
func serverView(v provider.View) string {
	if v.Name == "" {
		return "default"
	}
	return v.Name
}

// start starts the DNS server, with one server view per zonekeeper view (or a single "default"
// view), and stops it when ctx ends.
func (s *BuiltinFlags) start(ctx context.Context, env provider.Env) (*dnsserver.Server, error) {
	zones := s.BuiltinZones
	if len(zones) == 0 {
		zones = env.DomainFilter
	}
	if len(zones) == 0 {
		return nil, fmt.Errorf("--provider=builtin: name the zones to serve with --builtin-zone (or --domain-filter)")
	}
	sc := dnsserver.Config{
		Listen:          s.BuiltinListen,
		Zones:           zones,
		UseClientSubnet: s.BuiltinUseClientSubnet,
		SOA:             dnsserver.SOAConfig{RName: s.BuiltinSOARName, Minimum: s.BuiltinSOAMinimum},
		NameServers:     s.BuiltinNS,
		MaxUDPSize:      s.BuiltinMaxUDPSize,
	}
	names := map[string]bool{}
	for _, v := range env.Views {
		if v.Name == "" {
			continue
		}
		names[v.Name] = true
		if len(v.Subnets) == 0 {
			if sc.DefaultView != "" {
				return nil, fmt.Errorf("--provider=builtin: views %s and %s both have no --view-subnets; only one view can serve every other client", sc.DefaultView, v.Name)
			}
			sc.DefaultView = v.Name
			continue
		}
		sc.Views = append(sc.Views, dnsserver.ViewConfig{Name: v.Name, Subnets: v.Subnets})
	}
	if len(names) > 0 && sc.DefaultView == "" {
		return nil, fmt.Errorf("--provider=builtin: give one view no --view-subnets, to serve every client the others do not")
	}
	if err := s.files(&sc, names); err != nil {
		return nil, err
	}
	log := env.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	srv, err := dnsserver.New(sc, log)
	if err != nil {
		return nil, fmt.Errorf("--provider=builtin: %w", err)
	}
	if err := srv.Start(); err != nil {
		return nil, fmt.Errorf("--provider=builtin: %w", err)
	}
	log.Info("Built-in DNS server listening", "addresses", srv.Addrs(), "zones", zones, "views", srv.Views())
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	return srv, nil
}

// files adds the zone files, the TSIG keys, the NOTIFY targets and the AXFR rules to sc.
func (s *BuiltinFlags) files(sc *dnsserver.Config, views map[string]bool) error {
	for _, zf := range s.BuiltinZoneFiles {
		f := dnsserver.ZoneFile{Path: zf}
		if v, path, ok := strings.Cut(zf, "="); ok && views[v] {
			f = dnsserver.ZoneFile{Path: path, View: v}
		}
		sc.ZoneFiles = append(sc.ZoneFiles, f)
	}
	if s.BuiltinTSIGKeyFile != "" {
		keys, err := dnsserver.ReadTSIGKeyFile(s.BuiltinTSIGKeyFile)
		if err != nil {
			return fmt.Errorf("--builtin-tsig-key-file: %w", err)
		}
		sc.TSIGKeys = keys
		if sc.TSIGAlgorithms, err = dnsserver.ReadTSIGKeyAlgorithms(s.BuiltinTSIGKeyFile); err != nil {
			return fmt.Errorf("--builtin-tsig-key-file: %w", err)
		}
	}
	for _, n := range s.BuiltinNotify {
		addr, key, _ := strings.Cut(n, "=")
		sc.Notify = append(sc.Notify, dnsserver.NotifyTarget{Addr: addr, Key: key})
	}
	for _, a := range s.BuiltinAXFRAllow {
		cidr, key, ok := strings.Cut(a, "=")
		prefix, err := netip.ParsePrefix(cidr)
		if !ok || err != nil {
			return fmt.Errorf("--builtin-axfr-allow=%s: expected CIDR=KEYNAME", a)
		}
		sc.AXFR = append(sc.AXFR, dnsserver.AXFRAllow{Subnet: prefix, Key: key})
	}
	return nil
}
