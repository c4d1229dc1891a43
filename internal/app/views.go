package app

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/config"
	"github.com/zonekeeper/zonekeeper/internal/controller"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/kube"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	providerkinds "github.com/zonekeeper/zonekeeper/internal/provider/kinds"
	"github.com/zonekeeper/zonekeeper/internal/publicip"
	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/view"
)

// viewSpecs returns the configured views, or a single nil spec (no views: the sources published as
// they are, through one provider) when none is declared.
func viewSpecs(cfg config.Config) ([]*view.Spec, error) {
	var options []provider.ViewOption
	for _, k := range providerkinds.All(&cfg.Settings) {
		options = append(options, k.ViewOptions...)
	}
	if len(cfg.Views) == 0 {
		for _, f := range [][]string{cfg.ViewTargets, cfg.ViewTTL, cfg.ViewDomainFilter, cfg.ViewExcludeDomains, cfg.ViewSubnets, cfg.ViewProvider} {
			if len(f) > 0 {
				return nil, fmt.Errorf("--view-* settings need views declared with --view=NAME")
			}
		}
		for _, o := range options {
			if o.Values != nil && len(*o.Values) > 0 {
				return nil, fmt.Errorf("--view-* settings need views declared with --view=NAME")
			}
		}
		return []*view.Spec{nil}, nil
	}
	specs, err := view.Flags{
		Names: cfg.Views, Targets: cfg.ViewTargets, TTL: cfg.ViewTTL, DomainFilter: cfg.ViewDomainFilter,
		ExcludeDomains: cfg.ViewExcludeDomains, Subnets: cfg.ViewSubnets, Provider: cfg.ViewProvider,
	}.Specs()
	if err != nil {
		return nil, err
	}
	out := make([]*view.Spec, len(specs))
	names := make([]string, len(specs))
	for i := range specs {
		out[i], names[i] = &specs[i], specs[i].Name
	}
	// The provider kinds' per-view options (--view-coredns-prefix): each names a declared view.
	for _, o := range options {
		if _, err := o.ByView(names); err != nil {
			return nil, err
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

// publicAddress is the public address source for views with targets=public: --public-ip, and the
// discovery sources (a Node, a Service, an HTTP echo URL, STUN), looked up again every refresh.
func publicAddress(ctx context.Context, cfg config.Config, specs []*view.Spec, kube *kube.Client, log *slog.Logger, m publicip.Metrics) (view.AddressSource, error) {
	needed := false
	for _, s := range specs {
		needed = needed || (s != nil && s.Targets == view.TargetsPublic)
	}
	static, err := publicip.ParseStatic(cfg.PublicIP)
	if err != nil {
		return nil, fmt.Errorf("--public-ip: %w", err)
	}
	pc := publicip.Config{
		Static: static, Kube: kube, NodeName: cfg.PublicIPFromNode, EchoURL: cfg.PublicIPEchoURL,
		STUNServer: cfg.PublicIPSTUNServer, Order: splitList(cfg.PublicIPSourceOrder),
		RefreshInterval: cfg.PublicIPRefreshInterval, LookupTimeout: cfg.PublicIPLookupTimeout,
		AllowPrivate: cfg.PublicIPAllowPrivate, Logger: log, Metrics: m,
	}
	if cfg.PublicIPFromService != "" {
		if pc.ServiceNamespace, pc.ServiceName, err = publicip.ParseServiceRef(cfg.PublicIPFromService); err != nil {
			return nil, fmt.Errorf("--public-ip-from-service: %w", err)
		}
	}
	if !pc.Enabled() {
		if needed {
			return nil, fmt.Errorf("a view has targets=public: set --public-ip or one of --public-ip-from-node, --public-ip-from-service, --public-ip-echo-url, --public-ip-stun-server")
		}
		return nil, nil
	}
	d, err := publicip.New(pc)
	if err != nil {
		return nil, err
	}
	d.Start(ctx)
	return discoveredAddress{d}, nil
}

// splitList accepts a repeatable flag whose values may also be comma-separated.
func splitList(values []string) []string {
	var out []string
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, part)
			}
		}
	}
	return out
}

// discoveredAddress adapts the discoverer to the views' AddressSource.
type discoveredAddress struct{ d *publicip.Discoverer }

func toView(a publicip.Address) view.Address {
	return view.Address{V4: a.V4, V6: a.V6, Source: a.Source}
}

func (x discoveredAddress) Current() (view.Address, bool) {
	a, ok := x.d.Current()
	return toView(a), ok
}

func (x discoveredAddress) Subscribe(fn func(view.Address)) {
	x.d.Subscribe(func(a publicip.Address) { fn(toView(a)) })
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

func (v *namedViewNotifier) Held(namespaces []string, message string) {
	if n, ok := v.inner.(controller.GuardNotifier); ok {
		n.Held(namespaces, "view "+v.view+": "+message)
	}
}
