package app

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/config"
	"github.com/zonekeeper/zonekeeper/internal/controller"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/view"
)

// viewSpecs returns the configured views, or a single nil spec (no views: the sources published as
// they are, through one provider) when none is declared.
func viewSpecs(cfg config.Config) ([]*view.Spec, error) {
	if len(cfg.Views) == 0 {
		for _, f := range [][]string{cfg.ViewTargets, cfg.ViewTTL, cfg.ViewDomainFilter, cfg.ViewExcludeDomains, cfg.ViewCoreDNSPrefix, cfg.ViewSubnets} {
			if len(f) > 0 {
				return nil, fmt.Errorf("--view-* settings need views declared with --view=NAME")
			}
		}
		return []*view.Spec{nil}, nil
	}
	specs, err := view.Flags{
		Names: cfg.Views, Targets: cfg.ViewTargets, TTL: cfg.ViewTTL, DomainFilter: cfg.ViewDomainFilter,
		ExcludeDomains: cfg.ViewExcludeDomains, CoreDNSPrefix: cfg.ViewCoreDNSPrefix, Subnets: cfg.ViewSubnets,
	}.Specs()
	if err != nil {
		return nil, err
	}
	out := make([]*view.Spec, len(specs))
	prefixes := map[string]string{}
	for i := range specs {
		out[i] = &specs[i]
		if cfg.Provider == "coredns" || cfg.Provider == "skydns" {
			prefix := specs[i].CoreDNSPrefix
			if prefix == "" {
				prefix = cfg.CoreDNSPrefix
			}
			if other, dup := prefixes[prefix]; dup {
				return nil, fmt.Errorf("views %s and %s both write etcd prefix %s: give each view its own with --view-coredns-prefix", other, specs[i].Name, prefix)
			}
			prefixes[prefix] = specs[i].Name
		}
	}
	return out, nil
}

func viewName(spec *view.Spec) string {
	if spec == nil {
		return ""
	}
	return spec.Name
}

// viewSource is the shared source as the view sees it.
func viewSource(src source.Source, spec *view.Spec, address view.AddressSource) (source.Source, error) {
	if spec == nil {
		return src, nil
	}
	return view.NewSource(src, *spec, address)
}

// publicAddress is the public address source for views with targets=public: --public-ip.
func publicAddress(cfg config.Config, specs []*view.Spec) (view.AddressSource, error) {
	needed := false
	for _, s := range specs {
		needed = needed || (s != nil && s.Targets == view.TargetsPublic)
	}
	if len(cfg.PublicIP) == 0 {
		if needed {
			return nil, fmt.Errorf("a view has targets=public: set the public address with --public-ip")
		}
		return nil, nil
	}
	var addr view.Address
	for _, raw := range cfg.PublicIP {
		a, err := netip.ParseAddr(strings.TrimSpace(raw))
		if err != nil {
			return nil, fmt.Errorf("--public-ip=%s: not an IP address", raw)
		}
		a = a.Unmap()
		switch {
		case a.Is4() && !addr.V4.IsValid():
			addr.V4 = a
		case a.Is6() && !addr.V6.IsValid():
			addr.V6 = a
		default:
			return nil, fmt.Errorf("--public-ip=%s: one IPv4 and one IPv6 address at most", raw)
		}
	}
	addr.Source = "static (--public-ip)"
	static := &view.StaticAddress{}
	static.Set(addr)
	return static, nil
}

// viewNotifier tells object owners about one view, naming it in what it reports. (Problems in the
// input are the same in every view; only the first view's controller reports them.)
func viewNotifier(n controller.Notifier, spec *view.Spec) controller.Notifier {
	if n == nil || spec == nil {
		return n
	}
	return &namedViewNotifier{inner: n, view: spec.Name}
}

type namedViewNotifier struct {
	inner controller.Notifier
	view  string
}

func (v *namedViewNotifier) Published(resource string, records []*endpoint.Endpoint) {
	v.inner.Published(resource, records)
}

func (v *namedViewNotifier) Rejected(resource string, record *endpoint.Endpoint, err error) {
	v.inner.Rejected(resource, record, fmt.Errorf("view %s: %w", v.view, err))
}

func (v *namedViewNotifier) Conflict(resource string, message string) {
	v.inner.Conflict(resource, "view "+v.view+": "+message)
}

func (v *namedViewNotifier) InvalidInput(p endpoint.Problem) { v.inner.InvalidInput(p) }
