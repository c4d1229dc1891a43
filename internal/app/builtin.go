package app

import (
	"context"
	"fmt"
	"log/slog"
	"net/netip"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/config"
	"github.com/zonekeeper/zonekeeper/internal/dnsserver"
	"github.com/zonekeeper/zonekeeper/internal/view"
)

// startBuiltin starts zonekeeper's own DNS server for --provider=builtin, with one server view per
// zonekeeper view (or a single "default" view), and stops it when ctx ends.
func startBuiltin(ctx context.Context, cfg config.Config, specs []*view.Spec, log *slog.Logger) (*dnsserver.Server, error) {
	zones := cfg.BuiltinZones
	if len(zones) == 0 {
		zones = cfg.DomainFilter
	}
	if len(zones) == 0 {
		return nil, fmt.Errorf("--provider=builtin: name the zones to serve with --builtin-zone (or --domain-filter)")
	}
	sc := dnsserver.Config{
		Listen:          cfg.BuiltinListen,
		Zones:           zones,
		UseClientSubnet: cfg.BuiltinUseClientSubnet,
		SOA:             dnsserver.SOAConfig{RName: cfg.BuiltinSOARName, Minimum: cfg.BuiltinSOAMinimum},
		NameServers:     cfg.BuiltinNS,
		MaxUDPSize:      cfg.BuiltinMaxUDPSize,
	}
	names := map[string]bool{}
	for _, s := range specs {
		if s == nil {
			continue
		}
		names[s.Name] = true
		if len(s.Subnets) == 0 {
			if sc.DefaultView != "" {
				return nil, fmt.Errorf("--provider=builtin: views %s and %s both have no --view-subnets; only one view can serve every other client", sc.DefaultView, s.Name)
			}
			sc.DefaultView = s.Name
			continue
		}
		sc.Views = append(sc.Views, dnsserver.ViewConfig{Name: s.Name, Subnets: s.Subnets})
	}
	if len(names) > 0 && sc.DefaultView == "" {
		return nil, fmt.Errorf("--provider=builtin: give one view no --view-subnets, to serve every client the others do not")
	}
	for _, zf := range cfg.BuiltinZoneFiles {
		f := dnsserver.ZoneFile{Path: zf}
		if v, path, ok := strings.Cut(zf, "="); ok && names[v] {
			f = dnsserver.ZoneFile{Path: path, View: v}
		}
		sc.ZoneFiles = append(sc.ZoneFiles, f)
	}
	if cfg.BuiltinTSIGKeyFile != "" {
		keys, err := dnsserver.ReadTSIGKeyFile(cfg.BuiltinTSIGKeyFile)
		if err != nil {
			return nil, fmt.Errorf("--builtin-tsig-key-file: %w", err)
		}
		sc.TSIGKeys = keys
		if sc.TSIGAlgorithms, err = dnsserver.ReadTSIGKeyAlgorithms(cfg.BuiltinTSIGKeyFile); err != nil {
			return nil, fmt.Errorf("--builtin-tsig-key-file: %w", err)
		}
	}
	for _, n := range cfg.BuiltinNotify {
		addr, key, _ := strings.Cut(n, "=")
		sc.Notify = append(sc.Notify, dnsserver.NotifyTarget{Addr: addr, Key: key})
	}
	for _, a := range cfg.BuiltinAXFRAllow {
		cidr, key, ok := strings.Cut(a, "=")
		prefix, err := netip.ParsePrefix(cidr)
		if !ok || err != nil {
			return nil, fmt.Errorf("--builtin-axfr-allow=%s: expected CIDR=KEYNAME", a)
		}
		sc.AXFR = append(sc.AXFR, dnsserver.AXFRAllow{Subnet: prefix, Key: key})
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

// builtinView is the server view a zonekeeper view writes to.
func builtinView(spec *view.Spec) string {
	if spec == nil {
		return "default"
	}
	return spec.Name
}
