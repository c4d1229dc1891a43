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
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/zonekeeper/zonekeeper/internal/config"
	"github.com/zonekeeper/zonekeeper/internal/controller"
	"github.com/zonekeeper/zonekeeper/internal/dnsserver"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/events"
	"github.com/zonekeeper/zonekeeper/internal/health"
	"github.com/zonekeeper/zonekeeper/internal/metrics"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	awsprovider "github.com/zonekeeper/zonekeeper/internal/provider/aws"
	"github.com/zonekeeper/zonekeeper/internal/provider/builtin"
	"github.com/zonekeeper/zonekeeper/internal/provider/coredns"
	"github.com/zonekeeper/zonekeeper/internal/provider/inmemory"
	"github.com/zonekeeper/zonekeeper/internal/provider/pdns"
	"github.com/zonekeeper/zonekeeper/internal/provider/rfc2136"
	"github.com/zonekeeper/zonekeeper/internal/provider/webhook"
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
	kube     kubernetes.Interface
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
}

// kubeAccess is the Kubernetes API as the stages need it.
type kubeAccess struct {
	client  kubernetes.Interface
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
	if cfg.LeaderElect || cfg.PublicIPFromNode != "" || cfg.PublicIPFromService != "" {
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
		p.notifier = events.New(kube.client, lookup)
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
	be, err := newBackends(ctx, cfg, specs, log)
	if err != nil {
		return nil, err
	}
	if obs.metrics != nil {
		be.webhookMetrics = obs.metrics
	}
	for i, spec := range specs {
		viewSrc, err := viewSource(src, spec, address)
		if err != nil {
			return nil, err
		}
		prov, err := buildProvider(cfg, getenv, spec, be)
		if err != nil {
			return nil, err
		}
		if obs.metrics != nil {
			prov = obs.metrics.InstrumentProvider(cfg.Provider, prov)
		}
		reg, err := buildRegistry(cfg, prov)
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
			Debounce:           cfg.MinEventSyncInterval,
			DryRun:             cfg.DryRun,
			Observer:           observers,
			Notifier:           viewNotifier(notify, spec),
			QuietProblems:      i > 0,
			Guard: plan.Guard{MaxDeleteFraction: cfg.GuardMaxDeleteFraction, MaxUpdateFraction: cfg.GuardMaxUpdateFraction,
				MinChanges: cfg.GuardMinChanges, Zones: guardZones(cfg), Confirmed: cfg.GuardConfirm,
				Window: cfg.GuardWindow, Settle: guardSettle(cfg)},
		}, viewLog)
		p.views = append(p.views, &viewPipeline{name: viewName(spec), provider: prov, registry: reg, controller: ctrl})
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
func guardZones(cfg config.Config) []string {
	var zones []string
	for _, list := range [][]string{cfg.DomainFilter, cfg.RFC2136Zones, cfg.BuiltinZones, cfg.InMemoryZones} {
		zones = append(zones, list...)
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
		DefaultTargets:                 cfg.DefaultTargets,
		GatewayName:                    cfg.GatewayName,
		GatewayNamespace:               cfg.GatewayNamespace,
		GatewayLabelFilter:             cfg.GatewayLabelFilter,
		GatewayListenerSets:            cfg.GatewayListenerSets,
		PodSourceDomain:                cfg.PodSourceDomain,
		IgnoreNonHostNetworkPods:       cfg.IgnoreNonHostNetworkPods,
		ExposeInternalIPv6:             cfg.ExposeInternalIPv6,
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
	}
}

func kubeClients(cfg config.Config, getenv func(string) string) (kubeAccess, error) {
	rc, err := restConfig(cfg, getenv)
	if err != nil {
		return kubeAccess{}, err
	}
	rc.UserAgent = "zonekeeper"
	rc.QPS, rc.Burst = float32(cfg.KubeAPIQPS), cfg.KubeAPIBurst
	client, err := kubernetes.NewForConfig(rc)
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

// backends are what provider instances share: the DNS server zonekeeper runs itself, the Route 53
// rate limiter, and the webhook client's counters.
type backends struct {
	dnsServer      *dnsserver.Server
	awsLimiter     *awsprovider.Limiter
	webhookMetrics webhook.Metrics
	ctx            context.Context
	log            *slog.Logger
}

// newBackends starts what the provider instances of every view will share.
func newBackends(ctx context.Context, cfg config.Config, specs []*view.Spec, log *slog.Logger) (backends, error) {
	be := backends{ctx: ctx, log: log}
	if cfg.Provider == "aws" {
		// Route 53's budget is per account: every view's provider draws from one limiter.
		be.awsLimiter = awsprovider.NewLimiter(cfg.AWSRequestsPerSecond)
	}
	if cfg.Provider == "builtin" {
		var err error
		if be.dnsServer, err = startBuiltin(ctx, cfg, specs, log); err != nil {
			return backends{}, err
		}
	}
	return be, nil
}

// buildProvider builds the provider instance of a view (spec is nil without views).
func buildProvider(cfg config.Config, getenv func(string) string, spec *view.Spec, be backends) (provider.Provider, error) {
	switch cfg.Provider {
	case "inmemory":
		return inmemory.New(cfg.InMemoryZones...), nil
	case "aws":
		if spec != nil {
			return nil, fmt.Errorf("--provider=aws: views are not supported yet; Route 53's split horizon is a private and a public hosted zone of one name (--aws-zone-type)")
		}
		p, err := awsprovider.New(be.ctx, awsprovider.Config{
			DomainFilter: cfg.DomainFilter, ZoneIDFilter: cfg.ZoneIDFilter, ZoneType: cfg.AWSZoneType,
			ZoneTags: cfg.AWSZoneTags, ZonesCacheDuration: cfg.AWSZonesCacheDuration,
			BatchChangeSize: cfg.AWSBatchChangeSize, BatchChangeSizeBytes: cfg.AWSBatchChangeSizeBytes,
			BatchChangeSizeValues: cfg.AWSBatchChangeSizeValues, BatchChangeInterval: cfg.AWSBatchChangeInterval,
			EvaluateTargetHealth: cfg.AWSEvaluateTargetHealth, PreferCNAME: cfg.AWSPreferCNAME,
			APIRetries: cfg.AWSAPIRetries, Region: cfg.AWSRegion, Profiles: cfg.AWSProfiles,
			AssumeRole: cfg.AWSAssumeRole, AssumeRoleExternalID: cfg.AWSAssumeRoleExternalID,
			Limiter: be.awsLimiter, Logger: be.log,
		})
		if err != nil {
			return nil, fmt.Errorf("--provider=aws: %w", err)
		}
		return p, nil
	case "builtin":
		p, err := builtin.New(be.dnsServer, builtinView(spec))
		if err != nil {
			return nil, fmt.Errorf("--provider=builtin: %w", err)
		}
		return p, nil
	case "coredns", "skydns":
		ccfg, err := coredns.ConfigFromEnv()
		if err != nil {
			return nil, fmt.Errorf("--provider=coredns: %w", err)
		}
		ccfg.Prefix = cfg.CoreDNSPrefix
		if spec != nil && spec.CoreDNSPrefix != "" {
			ccfg.Prefix = spec.CoreDNSPrefix
		}
		ccfg.DomainFilter = cfg.DomainFilter
		p, err := coredns.New(ccfg)
		if err != nil {
			return nil, fmt.Errorf("--provider=coredns: %w", err)
		}
		return p, nil
	case "webhook":
		if spec != nil {
			return nil, fmt.Errorf("--provider=webhook: views are not supported; the protocol has one URL, and a view needs a backend of its own")
		}
		p, err := webhook.New(webhook.Config{
			URL: cfg.WebhookProviderURL, ReadTimeout: cfg.WebhookProviderReadTimeout,
			WriteTimeout: cfg.WebhookProviderWriteTimeout, Metrics: be.webhookMetrics, Logger: be.log,
		})
		if err != nil {
			return nil, fmt.Errorf("--provider=webhook: %w", err)
		}
		return p, nil
	case "pdns":
		if spec != nil {
			return nil, fmt.Errorf("--provider=pdns: PowerDNS 4.7 has no views; run one zonekeeper per PowerDNS server")
		}
		p, err := pdns.New(pdns.Config{
			Server: cfg.PDNSServer, ServerID: cfg.PDNSServerID,
			APIKey: cfg.PDNSAPIKey, APIKeyFile: cfg.PDNSAPIKeyFile,
			SkipTLSVerify: cfg.PDNSSkipTLSVerify, CAFile: cfg.TLSCA,
			ClientCertFile: cfg.TLSClientCert, ClientKeyFile: cfg.TLSClientCertKey,
			DomainFilter: cfg.DomainFilter,
		})
		if err != nil {
			return nil, fmt.Errorf("--provider=pdns: %w", err)
		}
		return p, nil
	case "rfc2136":
		keyName, secretFile, err := viewTSIGKey(cfg, spec)
		if err != nil {
			return nil, err
		}
		secret, err := rfc2136.LoadTSIGSecret(cfg.RFC2136TSIGSecret, cfg.RFC2136TSIGSecretFile, getenv)
		if secretFile != cfg.RFC2136TSIGSecretFile { // the view's own key: only its file counts
			secret, err = rfc2136.LoadTSIGSecret("", secretFile, func(string) string { return "" })
		}
		if err != nil {
			return nil, fmt.Errorf("--provider=rfc2136: %w", err)
		}
		p, err := rfc2136.New(rfc2136.Config{
			Hosts: cfg.RFC2136Hosts, Port: cfg.RFC2136Port, Zones: cfg.RFC2136Zones,
			TSIGKeyName: keyName, TSIGSecret: secret, TSIGSecretAlg: cfg.RFC2136TSIGSecretAlg,
			// zonekeeper always reads zones by AXFR: without the zone it cannot update or delete correctly.
			TSIGAXFR:        true,
			MinTTL:          cfg.RFC2136MinTTL,
			BatchChangeSize: cfg.RFC2136BatchChangeSize,
			Insecure:        cfg.RFC2136Insecure, UseTLS: cfg.RFC2136UseTLS, SkipTLSVerify: cfg.RFC2136SkipTLSVerify,
			TLSCAFile: cfg.TLSCA, TLSClientCert: cfg.TLSClientCert, TLSClientKey: cfg.TLSClientCertKey,
		})
		if err != nil {
			return nil, fmt.Errorf("--provider=rfc2136: %w", err)
		}
		return p, nil
	}
	return nil, fmt.Errorf("--provider=%s: unknown provider", cfg.Provider)
}

func buildRegistry(cfg config.Config, p provider.Provider) (registry.Registry, error) {
	if cfg.Registry == "noop" {
		return noop.New(p), nil
	}
	tcfg := txt.Config{
		OwnerID:             cfg.TXTOwnerID,
		OldOwnerID:          cfg.MigrateFromTXTOwner,
		Prefix:              cfg.TXTPrefix,
		Suffix:              cfg.TXTSuffix,
		WildcardReplacement: cfg.TXTWildcardReplacement,
		EncryptEnabled:      cfg.TXTEncryptEnabled,
		ManagedRecordTypes:  cfg.ManagedRecordTypes,
		// Event-driven runs plan over the cache; the controller invalidates it at every resync.
		CacheInterval: cfg.Interval,
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

// viewTSIGKey returns the TSIG key of a view: BIND selects a view by the key that signs an update, so
// each view has its own (--view-rfc2136-tsig-keyname and --view-rfc2136-tsig-secret-file).
func viewTSIGKey(cfg config.Config, spec *view.Spec) (name, secretFile string, err error) {
	if spec == nil {
		return cfg.RFC2136TSIGKeyName, cfg.RFC2136TSIGSecretFile, nil
	}
	name, secretFile = cfg.RFC2136TSIGKeyName, cfg.RFC2136TSIGSecretFile
	for _, kv := range cfg.ViewTSIGKeyName {
		if v, key, ok := strings.Cut(kv, "="); ok && v == spec.Name {
			name = key
		}
	}
	for _, kv := range cfg.ViewTSIGSecretFile {
		if v, file, ok := strings.Cut(kv, "="); ok && v == spec.Name {
			secretFile = file
		}
	}
	if name == cfg.RFC2136TSIGKeyName && len(cfg.Views) > 1 {
		return "", "", fmt.Errorf("--provider=rfc2136 with views: give view %s its own key with --view-rfc2136-tsig-keyname=%s=KEY and --view-rfc2136-tsig-secret-file=%s=FILE (BIND picks the view by key)", spec.Name, spec.Name, spec.Name)
	}
	return name, secretFile, nil
}
