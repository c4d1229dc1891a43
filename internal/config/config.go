// Package config holds zonekeeper's settings and parses them from external-dns-compatible flags, so an
// existing external-dns command line (or EXTERNAL_DNS_* environment) runs unchanged.
package config

import (
	"slices"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/provider/kinds"
)

// Config is every setting of one zonekeeper run.
type Config struct {
	// Kubernetes access.
	Kubeconfig string
	Master     string
	// Kubernetes client settings (external-dns's flags).
	KubeAPIQPS            float64
	KubeAPIBurst          int
	RequestTimeout        time.Duration
	KubeAPIRequestTimeout time.Duration
	// CRDSourceAPIVersion and CRDSourceKind name the DNSEndpoint resource; only external-dns's own is
	// served.
	CRDSourceAPIVersion string
	CRDSourceKind       string
	// Source post-processing (external-dns's wrappers).
	DefaultTargets      []string
	ForceDefaultTargets bool
	// CreatePTR is --create-ptr: PTR records for every A and AAAA record (needs PTR managed).
	CreatePTR         bool
	TargetNetFilter   []string
	ExcludeTargetNets []string
	MinTTL            time.Duration
	// EventsEmit is accepted; zonekeeper always emits its events.
	EventsEmit []string
	// PrintVersion is --version.
	PrintVersion bool
	// Refused lists the external-dns flags given that zonekeeper does not implement.
	Refused []string
	// NotApplied lists, as "--flag: reason", the flags given that zonekeeper accepts and does not
	// apply; the controller logs each one at start.
	NotApplied []string

	// Sources.
	Sources          []string
	Manifest         string
	Namespace        string
	AnnotationPrefix string
	// EnableLegacyAnnotationPrefix is external-dns v0.23's flag: "" when not given, "true" or "false".
	EnableLegacyAnnotationPrefix   string
	LabelFilter                    string
	AnnotationFilter               string
	IngressClassNames              []string
	ServiceTypeFilter              []string
	FQDNTemplate                   string
	TargetTemplate                 string
	FQDNTargetTemplate             string
	CombineFQDNAndAnnotation       bool
	IgnoreHostnameAnnotation       bool
	IgnoreIngressTLSSpec           bool
	IgnoreIngressRulesSpec         bool
	PublishInternalServices        bool
	PublishHostIP                  bool
	AlwaysPublishNotReadyAddresses bool
	ExcludeUnschedulable           bool
	TraefikEnableLegacy            bool
	TraefikDisableNew              bool
	OpenShiftRouterName            string
	SkipperRouteGroupVersion       string
	GlooNamespaces                 []string
	GatewayName                    string
	GatewayNamespace               string
	GatewayLabelFilter             string
	GatewayListenerSets            bool
	PodSourceDomain                string
	IgnoreNonHostNetworkPods       bool
	ExposeInternalIPv6             bool

	// Mass-change guard (zonekeeper's own; external-dns has none).
	GuardMaxDeleteFraction float64
	GuardMaxUpdateFraction float64
	GuardMinChanges        int
	GuardWindow            time.Duration
	GuardSettle            time.Duration
	GuardConfirm           []string

	// Provider: --provider, the settings every provider reads, and each provider kind's own flags
	// (internal/provider/kinds), embedded so that they read as cfg.AWSRegion.
	Provider string
	// ZoneIDFilter is --zone-id-filter: only these hosted zone ids.
	ZoneIDFilter []string
	// TLS files of providers that speak TLS (rfc2136, pdns).
	TLSCA            string
	TLSClientCert    string
	TLSClientCertKey string
	kinds.Settings

	// The webhook server's (zonekeeper webhook, --webhook-server) limits, as external-dns v0.23; its
	// read timeout is --webhook-provider-read-timeout, as in external-dns.
	WebhookProviderReadHeaderTimeout time.Duration
	WebhookProviderIdleTimeout       time.Duration
	WebhookProviderMaxBodySize       int64
	WebhookServer                    bool
	WebhookServerAddress             string

	// Registry.
	Registry               string
	CRDRegistryNamespace   string
	MigrateFromTXTOwner    string
	TXTOwnerID             string
	TXTPrefix              string
	TXTSuffix              string
	TXTWildcardReplacement string
	TXTEncryptEnabled      bool
	TXTEncryptAESKey       string

	// Plan.
	Policy               string
	ManagedRecordTypes   []string
	ExcludeRecordTypes   []string
	DomainFilter         []string
	ExcludeDomains       []string
	RegexDomainFilter    string
	RegexDomainExclusion string

	// Controller.
	Interval             time.Duration
	MinEventSyncInterval time.Duration
	Once                 bool
	DryRun               bool

	// ProviderCacheTime is --provider-cache-time (see controller.Settings.ProviderCacheTime).
	ProviderCacheTime time.Duration

	// Split horizon: views (see internal/view) and the public address.
	Views              []string
	ViewTargets        []string
	ViewTTL            []string
	ViewDomainFilter   []string
	ViewExcludeDomains []string
	ViewSubnets        []string
	// ViewProvider is --view-provider=NAME=KIND: the provider kind publishing a view (default --provider).
	ViewProvider []string
	PublicIP     []string
	// Public address discovery (internal/publicip).
	PublicIPFromNode        string
	PublicIPFromService     string
	PublicIPEchoURL         string
	PublicIPSTUNServer      string
	PublicIPSourceOrder     []string
	PublicIPRefreshInterval time.Duration
	PublicIPLookupTimeout   time.Duration
	PublicIPAllowPrivate    bool

	// Operations.
	MetricsAddress           string
	LeaderElect              bool
	LeaderElectLeaseDuration time.Duration
	LeaderElectRenewDeadline time.Duration
	LeaderElectRetryPeriod   time.Duration
	LeaderElectNamespace     string
	LeaderElectLeaseName     string

	// Logging.
	LogLevel  string
	LogFormat string
}

// Default returns the settings used when no flag is given.
func Default() Config {
	cfg := Config{
		Sources:                  nil,
		ExcludeUnschedulable:     true,
		GuardMaxDeleteFraction:   0.3,
		GuardMinChanges:          10,
		GuardWindow:              10 * time.Minute,
		GuardSettle:              3 * time.Second,
		Provider:                 "",
		Registry:                 "txt",
		TXTOwnerID:               "default",
		Policy:                   "sync",
		ManagedRecordTypes:       []string{"A", "AAAA", "CNAME"},
		Interval:                 time.Minute,
		MinEventSyncInterval:     100 * time.Millisecond,
		MetricsAddress:           ":7979",
		LeaderElectLeaseDuration: 15 * time.Second,
		LeaderElectRenewDeadline: 10 * time.Second,
		LeaderElectRetryPeriod:   2 * time.Second,
		LeaderElectLeaseName:     "zonekeeper",
		LogLevel:                 "info",
		LogFormat:                "text",

		KubeAPIQPS:            5,
		KubeAPIBurst:          10,
		RequestTimeout:        30 * time.Second,
		KubeAPIRequestTimeout: 30 * time.Second,
		CRDSourceAPIVersion:   "externaldns.k8s.io/v1alpha1",
		CRDSourceKind:         "DNSEndpoint",

		WebhookProviderReadHeaderTimeout: 5 * time.Second,
		WebhookProviderIdleTimeout:       30 * time.Second,
		WebhookProviderMaxBodySize:       32 << 20,
		WebhookServerAddress:             "127.0.0.1:8888",

		PublicIPRefreshInterval: 5 * time.Minute,
		PublicIPLookupTimeout:   10 * time.Second,
	}
	kinds.SetDefaults(&cfg.Settings)
	return cfg
}

// PTRManaged reports whether PTR records are managed: in --managed-record-types and not in
// --exclude-record-types. PTR generation (--create-ptr, the record-type annotation) needs it.
func (c Config) PTRManaged() bool {
	return slices.Contains(c.ManagedRecordTypes, "PTR") && !slices.Contains(c.ExcludeRecordTypes, "PTR")
}
