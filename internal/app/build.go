package app

import (
	"context"
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/zonekeeper/zonekeeper/internal/config"
	"github.com/zonekeeper/zonekeeper/internal/controller"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/events"
	"github.com/zonekeeper/zonekeeper/internal/health"
	"github.com/zonekeeper/zonekeeper/internal/kube"
	"github.com/zonekeeper/zonekeeper/internal/metrics"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	providerkinds "github.com/zonekeeper/zonekeeper/internal/provider/kinds"
	"github.com/zonekeeper/zonekeeper/internal/publicip"
	"github.com/zonekeeper/zonekeeper/internal/registry"
	"github.com/zonekeeper/zonekeeper/internal/registry/noop"
	"github.com/zonekeeper/zonekeeper/internal/registry/txt"
	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/status"
	"github.com/zonekeeper/zonekeeper/internal/view"
)

// pipeline is a built set of stages: the shared sources and one or more views, each with its own
// provider, registry and controller.
type pipeline struct {
	source source.Source
	views  []*viewPipeline
	// kube is nil when no stage needs the Kubernetes API (manifest source, no leader election).
	kube     *kube.Client
	notifier *events.Notifier
	// deferred are the cluster sources; each says whether it runs fully (Err).
	deferred []*source.Deferred
}

// viewPipeline is the part of the pipeline that belongs to one view ("" when there are no views).
type viewPipeline struct {
	name       string
	provider   provider.Provider
	registry   registry.Registry
	controller *controller.Controller
	// printsZones: the view's provider kind keeps its records in this process (a --once run prints them).
	printsZones bool
}

// kubeAccess is the Kubernetes API as the stages need it.
type kubeAccess struct {
	client  *kube.Client
	dynamic dynamic.Interface
	rest    *rest.Config
}

// observability is what the pipeline reports to: metrics and readiness (either may be nil).
type observability struct {
	metrics *metrics.Metrics
	health  *health.Health
}

func (o observability) observers() multiObserver {
	list := multiObserver{}
	if o.metrics != nil {
		list = append(list, o.metrics)
	}
	if o.health != nil {
		list = append(list, o.health)
	}
	return list
}

type multiObserver []controller.Observer

func (m multiObserver) Reconciled(r controller.Report) {
	for _, o := range m {
		o.Reconciled(r)
	}
}

func needsKube(cfg config.Config) bool {
	if cfg.LeaderElect || cfg.PublicIPFromNode != "" || cfg.PublicIPFromService != "" || cfg.Registry == "crd" {
		return true
	}
	return cfg.NeedsCluster()
}

func build(ctx context.Context, cfg config.Config, log *slog.Logger, getenv func(string) string, obs observability) (*pipeline, error) {
	specs, err := viewSpecs(cfg)
	if err != nil {
		return nil, err
	}
	var kube kubeAccess
	if needsKube(cfg) {
		if kube, err = kubeClients(cfg, getenv); err != nil {
			return nil, err
		}
	}
	srcs, err := buildSources(ctx, cfg, kube, log, obs)
	if err != nil {
		return nil, err
	}
	src := srcs.source
	policy, err := plan.ParsePolicy(cfg.Policy)
	if err != nil {
		return nil, fmt.Errorf("--policy: %w", err)
	}
	filter, err := plan.NewDomainFilter(cfg.DomainFilter, cfg.ExcludeDomains, cfg.RegexDomainFilter, cfg.RegexDomainExclusion)
	if err != nil {
		return nil, err
	}
	p := &pipeline{source: src, kube: kube.client, deferred: srcs.deferred}
	var notify controller.Notifier
	observers := obs.observers()
	if lookup, ok := src.(source.ObjectLookup); ok && kube.client != nil && !cfg.DryRun {
		if p.notifier, err = events.New(kube.rest, lookup, log); err != nil {
			return nil, err
		}
		notify = p.notifier
	}
	if srcs.dnsEndpoints != nil && !cfg.DryRun {
		observers = append(observers, status.NewDNSEndpointWriter(kube.dynamic, srcs.dnsEndpoints, log))
	}
	var ipMetrics publicip.Metrics
	if obs.metrics != nil {
		ipMetrics = obs.metrics.PublicAddress()
	}
	address, err := publicAddress(ctx, cfg, specs, kube.client, log, ipMetrics)
	if err != nil {
		return nil, err
	}
	var providerMetrics any
	if obs.metrics != nil {
		providerMetrics = obs.metrics
	}
	providers, err := startViewProviders(ctx, cfg, getenv, specs, log, providerMetrics)
	if err != nil {
		return nil, err
	}
	for i, spec := range specs {
		viewSrc, err := viewSource(src, spec, address)
		if err != nil {
			return nil, err
		}
		prov, err := providers[i].new(providerView(spec))
		if err != nil {
			return nil, err
		}
		kindName := cfg.Provider // as given (an alias stays in the metrics' labels)
		if spec != nil && spec.Provider != "" {
			kindName = spec.Provider
		}
		caps := prov.Capabilities()
		if obs.metrics != nil {
			prov = obs.metrics.InstrumentProvider(kindName, prov)
		}
		// Outside the metrics: the drop is not the provider's call to time.
		prov = provider.OwnPropertiesOnly(prov, providers[i].kind.Properties)
		reg, err := buildRegistry(cfg, prov, kube, log)
		if err != nil {
			return nil, err
		}
		viewLog := log
		if spec != nil {
			viewLog = log.With("view", spec.Name)
		}
		ctrl := controller.New(viewSrc, reg, controller.Settings{
			View:               viewName(spec),
			OwnerID:            reg.OwnerID(),
			OldOwnerID:         oldOwner(cfg),
			Policy:             policy,
			DomainFilter:       filter,
			ManagedRecordTypes: cfg.ManagedRecordTypes,
			ExcludeRecordTypes: cfg.ExcludeRecordTypes,
			Interval:           cfg.Interval,
			ProviderCacheTime:  cfg.ProviderCacheTime,
			Debounce:           cfg.MinEventSyncInterval,
			DryRun:             cfg.DryRun,
			Observer:           observers,
			Notifier:           viewNotifier(notify, spec),
			QuietProblems:      i > 0,
			Guard: plan.Guard{MaxDeleteFraction: cfg.GuardMaxDeleteFraction, MaxUpdateFraction: cfg.GuardMaxUpdateFraction,
				MinChanges: cfg.GuardMinChanges, Zones: guardZones(&cfg), Confirmed: cfg.GuardConfirm,
				Window: cfg.GuardWindow, Settle: guardSettle(cfg)},
			Capabilities: &caps, ProviderName: kindName,
		}, viewLog)
		p.views = append(p.views, &viewPipeline{name: viewName(spec), provider: prov, registry: reg, controller: ctrl,
			printsZones: providers[i].kind.PrintsZones})
	}
	return p, nil
}

// guardSettle is --guard-settle for a controller; a one-shot run (--once, zonekeeper plan) judges the
// plan it has, whole.
func guardSettle(cfg config.Config) time.Duration {
	if cfg.Once || cfg.DryRun {
		return 0
	}
	return cfg.GuardSettle
}

// guardZones are the zone names the mass-change guard counts by: the domain filters and the zones
// named to the providers. Names under none count together.
func guardZones(cfg *config.Config) []string {
	zones := append([]string(nil), cfg.DomainFilter...)
	for _, k := range providerkinds.All(&cfg.Settings) {
		if k.Zones != nil {
			zones = append(zones, k.Zones()...)
		}
	}
	return zones
}

// oldOwner is the owner being migrated from; only the TXT registry has owners.
func oldOwner(cfg config.Config) string {
	if cfg.Registry != "txt" {
		return ""
	}
	return cfg.MigrateFromTXTOwner
}

func sourceConfig(cfg config.Config) source.Config {
	return source.Config{
		Namespace:                      cfg.Namespace,
		AnnotationPrefix:               annotationPrefix(cfg),
		LabelFilter:                    cfg.LabelFilter,
		AnnotationFilter:               cfg.AnnotationFilter,
		IngressClassNames:              cfg.IngressClassNames,
		ServiceTypeFilter:              cfg.ServiceTypeFilter,
		FQDNTemplate:                   cfg.FQDNTemplate,
		TargetTemplate:                 cfg.TargetTemplate,
		FQDNTargetTemplate:             cfg.FQDNTargetTemplate,
		CombineFQDNAndAnnotation:       cfg.CombineFQDNAndAnnotation,
		IgnoreHostnameAnnotation:       cfg.IgnoreHostnameAnnotation,
		IgnoreIngressTLSSpec:           cfg.IgnoreIngressTLSSpec,
		IgnoreIngressRulesSpec:         cfg.IgnoreIngressRulesSpec,
		PublishInternalServices:        cfg.PublishInternalServices,
		PublishHostIP:                  cfg.PublishHostIP,
		AlwaysPublishNotReadyAddresses: cfg.AlwaysPublishNotReadyAddresses,
		ExcludeUnschedulable:           cfg.ExcludeUnschedulable,
		TraefikEnableLegacy:            cfg.TraefikEnableLegacy,
		TraefikDisableNew:              cfg.TraefikDisableNew,
		OpenShiftRouterName:            cfg.OpenShiftRouterName,
		SkipperRouteGroupVersion:       cfg.SkipperRouteGroupVersion,
		GlooNamespaces:                 cfg.GlooNamespaces,
		DefaultTargets:                 cfg.DefaultTargets,
		GatewayName:                    cfg.GatewayName,
		GatewayNamespace:               cfg.GatewayNamespace,
		GatewayLabelFilter:             cfg.GatewayLabelFilter,
		GatewayListenerSets:            cfg.GatewayListenerSets,
		PodSourceDomain:                cfg.PodSourceDomain,
		IgnoreNonHostNetworkPods:       cfg.IgnoreNonHostNetworkPods,
		ExposeInternalIPv6:             cfg.ExposeInternalIPv6,
		ProviderProperties:             providerProperties(cfg),
	}
}

// annotationPrefix is the one prefix to read, or "" for both of external-dns's: zonekeeper reads both
// unless told otherwise; --enable-legacy-annotation-prefix=false asks for v0.23's strict default (only
// external-dns.kubernetes.io/), =true for both, as v0.23 does.
func annotationPrefix(cfg config.Config) string {
	switch {
	case cfg.EnableLegacyAnnotationPrefix == "true" && cfg.AnnotationPrefix == "external-dns.kubernetes.io/":
		return ""
	case cfg.EnableLegacyAnnotationPrefix == "false" && cfg.AnnotationPrefix == "":
		return "external-dns.kubernetes.io/"
	}
	return cfg.AnnotationPrefix
}

// postProcessConfig maps external-dns's source wrapper flags (validated by config).
func postProcessConfig(cfg config.Config) source.PostProcessConfig {
	prefixes := func(cidrs []string) []netip.Prefix {
		var out []netip.Prefix
		for _, c := range cidrs {
			if p, err := netip.ParsePrefix(c); err == nil {
				out = append(out, p.Masked())
			}
		}
		return out
	}
	return source.PostProcessConfig{
		DefaultTargets: cfg.DefaultTargets, ForceDefaultTargets: cfg.ForceDefaultTargets,
		TargetNetFilter: prefixes(cfg.TargetNetFilter), ExcludeTargetNets: prefixes(cfg.ExcludeTargetNets),
		MinTTL: endpoint.TTL(cfg.MinTTL / time.Second),
		PTR:    source.PTRConfig{Managed: cfg.PTRManaged(), Create: cfg.CreatePTR, InDomainFilter: inDomainFilter(cfg)},
	}
}

// inDomainFilter is --domain-filter's match (config has validated its expressions), nil when no
// filter is set.
func inDomainFilter(cfg config.Config) func(string) bool {
	f, err := plan.NewDomainFilter(cfg.DomainFilter, cfg.ExcludeDomains, cfg.RegexDomainFilter, cfg.RegexDomainExclusion)
	if err != nil || !f.IsConfigured() {
		return nil
	}
	return f.Match
}

// ptrWithoutReverseZone says why --create-ptr can make no PTR record at all: --domain-filter is set and
// names no reverse zone (external-dns's plan then drops every PTR without a word). "" when it can, or
// when a regular expression filters (it may select them).
func ptrWithoutReverseZone(cfg config.Config) string {
	if !cfg.CreatePTR || len(cfg.DomainFilter) == 0 || cfg.RegexDomainFilter != "" {
		return ""
	}
	match := inDomainFilter(cfg)
	for _, d := range cfg.DomainFilter {
		d = strings.Trim(strings.ToLower(d), ".")
		if match == nil || d == "arpa" || strings.HasSuffix(d, "in-addr.arpa") || strings.HasSuffix(d, "ip6.arpa") {
			return ""
		}
	}
	return "--create-ptr: --domain-filter names no reverse zone (in-addr.arpa, ip6.arpa), so no PTR record will be made; add the reverse zones to --domain-filter"
}

func kubeClients(cfg config.Config, getenv func(string) string) (kubeAccess, error) {
	rc, err := restConfig(cfg, getenv)
	if err != nil {
		return kubeAccess{}, err
	}
	rc.UserAgent = "zonekeeper"
	rc.QPS, rc.Burst = float32(cfg.KubeAPIQPS), cfg.KubeAPIBurst
	client, err := kube.NewForConfig(rc)
	if err != nil {
		return kubeAccess{}, err
	}
	dyn, err := dynamic.NewForConfig(rc)
	if err != nil {
		return kubeAccess{}, err
	}
	return kubeAccess{client: client, dynamic: dyn, rest: rc}, nil
}

// restConfig follows external-dns: --kubeconfig and --master, else in-cluster, else $KUBECONFIG or
// ~/.kube/config.
func restConfig(cfg config.Config, getenv func(string) string) (*rest.Config, error) {
	kubeconfig := cfg.Kubeconfig
	if kubeconfig == "" && cfg.Master == "" {
		if rc, err := rest.InClusterConfig(); err == nil {
			return rc, nil
		}
		kubeconfig = getenv("KUBECONFIG")
		if kubeconfig == "" {
			if home, err := os.UserHomeDir(); err == nil {
				if p := filepath.Join(home, ".kube", "config"); fileExists(p) {
					kubeconfig = p
				}
			}
		}
	}
	rc, err := clientcmd.BuildConfigFromFlags(cfg.Master, kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client (--kubeconfig=%q --master=%q): %w", kubeconfig, cfg.Master, err)
	}
	return rc, nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// providerEnv is what the provider kind's constructor gets besides its own settings.
func providerEnv(cfg config.Config, getenv func(string) string, specs []*view.Spec, log *slog.Logger) provider.Env {
	env := provider.Env{
		Log: log, Getenv: getenv, DomainFilter: cfg.DomainFilter, ZoneIDFilter: cfg.ZoneIDFilter,
		TLS: provider.TLSFiles{CAFile: cfg.TLSCA, CertFile: cfg.TLSClientCert, KeyFile: cfg.TLSClientCertKey},
	}
	for _, spec := range specs {
		env.Views = append(env.Views, providerView(spec))
	}
	return env
}

// providerView is the view a provider instance publishes (spec is nil without views).
func providerView(spec *view.Spec) provider.View {
	if spec == nil {
		return provider.View{}
	}
	return provider.View{Name: spec.Name, Subnets: spec.Subnets}
}

// startProvider starts what the selected provider kind's instances share and returns the constructor
// of its instance, for the webhook server (which has no views; a run starts its views' kinds with
// startViewProviders).
func startProvider(ctx context.Context, cfg config.Config, env provider.Env) (func(provider.View) (provider.Provider, error), error) {
	k, ok := cfg.ProviderKind()
	if !ok {
		return nil, fmt.Errorf("--provider=%s: unknown provider", cfg.Provider)
	}
	return k.New(ctx, env)
}

func buildRegistry(cfg config.Config, p provider.Provider, kube kubeAccess, log *slog.Logger) (registry.Registry, error) {
	switch cfg.Registry {
	case "noop":
		return noop.New(p), nil
	case "crd":
		return buildCRDRegistry(cfg, p, kube, log)
	}
	tcfg := txt.Config{
		OwnerID:             cfg.TXTOwnerID,
		OldOwnerID:          cfg.MigrateFromTXTOwner,
		Prefix:              cfg.TXTPrefix,
		Suffix:              cfg.TXTSuffix,
		WildcardReplacement: cfg.TXTWildcardReplacement,
		EncryptEnabled:      cfg.TXTEncryptEnabled,
		ManagedRecordTypes:  cfg.ManagedRecordTypes,
		// Event-driven runs plan over the cache; the controller drops it at a resync when the provider's
		// records are due for relisting (--provider-cache-time) or a zone probe saw a change.
		CacheInterval: max(cfg.Interval, cfg.ProviderCacheTime),
	}
	if cfg.TXTEncryptAESKey != "" {
		key, err := txt.ParseAESKey(cfg.TXTEncryptAESKey)
		if err != nil {
			return nil, fmt.Errorf("--txt-encrypt-aes-key: %w", err)
		}
		tcfg.EncryptKey = key
	}
	reg, err := txt.New(p, tcfg)
	if err != nil {
		return nil, fmt.Errorf("--registry=txt: %w", err)
	}
	return reg, nil
}
