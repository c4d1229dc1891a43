package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/flagvalue"
	providerkinds "github.com/zonekeeper/zonekeeper/internal/provider/kinds"
	"github.com/zonekeeper/zonekeeper/internal/source/kinds"
	"github.com/zonekeeper/zonekeeper/internal/source/skipper"
)

// acceptedNoOp lists external-dns flags that zonekeeper accepts for compatibility but does not need:
// their behaviour is always on, or has no meaning here. Each maps to the reason, shown by --help.
func acceptedNoOp() map[string]string {
	return map[string]string{
		"events":                "zonekeeper is always event-driven",
		"txt-cache-interval":    "the registry cache is write-through and refreshed every --interval",
		"aws-zone-match-parent": "always on: a hosted zone containing a --domain-filter domain is managed, for the names inside the filter",
	}
}

// NewFlagSet binds every flag to cfg. Its defaults are cfg's current values.
func NewFlagSet(name string, cfg *Config, output io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(output)
	fs.Usage = func() { writeUsage(fs.Output(), name, fs) } // help.go: grouped, --flag style
	list := func(p *[]string, name, usage string) { flagvalue.BindList(fs, p, name, usage) }

	fs.StringVar(&cfg.Kubeconfig, "kubeconfig", cfg.Kubeconfig, "path to a kubeconfig file (default: in-cluster, then $KUBECONFIG, then ~/.kube/config)")
	fs.StringVar(&cfg.Master, "master", cfg.Master, "Kubernetes API server URL, overriding the kubeconfig")
	fs.StringVar(&cfg.Master, "server", cfg.Master, "alias of --master")
	fs.Float64Var(&cfg.KubeAPIQPS, "kube-api-qps", cfg.KubeAPIQPS, "queries per second to the Kubernetes API")
	fs.IntVar(&cfg.KubeAPIBurst, "kube-api-burst", cfg.KubeAPIBurst, "burst of queries to the Kubernetes API")
	fs.DurationVar(&cfg.RequestTimeout, "request-timeout", cfg.RequestTimeout, "accepted for external-dns compatibility, not applied: a client timeout would also cut the informers' watches")
	fs.DurationVar(&cfg.KubeAPIRequestTimeout, "kube-api-request-timeout", cfg.KubeAPIRequestTimeout, "accepted for external-dns compatibility, not applied: a client timeout would also cut the informers' watches")
	fs.StringVar(&cfg.CRDSourceAPIVersion, "crd-source-apiversion", cfg.CRDSourceAPIVersion, "API version of the DNSEndpoint resource (only externaldns.k8s.io/v1alpha1)")
	fs.StringVar(&cfg.CRDSourceKind, "crd-source-kind", cfg.CRDSourceKind, "kind of the DNSEndpoint resource (only DNSEndpoint)")
	list(&cfg.DefaultTargets, "default-targets", "targets (IPs or a hostname) for DNSEndpoint entries without targets; with --force-default-targets, for every record (repeatable)")
	fs.BoolVar(&cfg.ForceDefaultTargets, "force-default-targets", cfg.ForceDefaultTargets, "publish --default-targets instead of the targets of every source")
	fs.BoolVar(&cfg.CreatePTR, "create-ptr", cfg.CreatePTR, "PTR records in the reverse zones (in-addr.arpa, ip6.arpa) for every A and AAAA record; an object opts out with an empty record-type annotation (needs PTR in --managed-record-types, and the reverse zones in --domain-filter when it is set)")
	list(&cfg.TargetNetFilter, "target-net-filter", "CIDR: publish only targets that are IPs inside (hostnames too are dropped, as in external-dns; repeatable)")
	list(&cfg.ExcludeTargetNets, "exclude-target-net", "CIDR: never publish IP targets inside (repeatable)")
	fs.DurationVar(&cfg.MinTTL, "min-ttl", cfg.MinTTL, "TTL of records whose object sets none")
	list(&cfg.EventsEmit, "events-emit", "accepted for external-dns compatibility: zonekeeper always emits its events (Published, Conflict, RecordRejected, InvalidAnnotation)")
	fs.BoolVar(&cfg.PrintVersion, "version", cfg.PrintVersion, "print the version and exit")
	registerRefused(fs, &cfg.Refused)

	list(&cfg.Sources, "source", "source of endpoints (repeatable): "+strings.Join(kinds.Names(), ", ")+"; crd reads DNSEndpoint objects, manifest reads --manifest")
	fs.StringVar(&cfg.Manifest, "manifest", cfg.Manifest, "file or directory of Kubernetes YAML read by --source=manifest")
	fs.StringVar(&cfg.Namespace, "namespace", cfg.Namespace, "limit sources to this namespace (default: all)")
	fs.StringVar(&cfg.AnnotationPrefix, "annotation-prefix", cfg.AnnotationPrefix, "annotation prefix to read (default: both external-dns.alpha.kubernetes.io/ and external-dns.kubernetes.io/)")
	fs.StringVar(&cfg.LabelFilter, "label-filter", cfg.LabelFilter, "label selector objects must match")
	fs.StringVar(&cfg.AnnotationFilter, "annotation-filter", cfg.AnnotationFilter, "selector (label-selector syntax) object annotations must match")
	list(&cfg.IngressClassNames, "ingress-class", "ingress class to publish (repeatable)")
	list(&cfg.ServiceTypeFilter, "service-type-filter", "service type to publish (repeatable): ClusterIP, NodePort, LoadBalancer, ExternalName")
	fs.Var(&joinedList{target: &cfg.FQDNTemplate}, "fqdn-template", "Go template for hostnames of objects that name none, e.g. '{{.Name}}.example.com' (repeatable: joined with commas, as external-dns v0.22+)")
	fs.Var(&joinedList{target: &cfg.TargetTemplate}, "target-template", "Go template for the targets of --fqdn-template names on the gloo-proxy, traefik-proxy and f5 sources (repeatable, joined with commas)")
	fs.Var(&joinedList{target: &cfg.FQDNTargetTemplate}, "fqdn-target-template", "Go template giving host:target pairs, e.g. '{{.Name}}.example.com:{{.Spec.ClusterIP}}', on the service, node, pod, gloo-proxy, traefik-proxy and f5 sources (repeatable)")
	fs.Var(&optionalBool{target: &cfg.EnableLegacyAnnotationPrefix}, "enable-legacy-annotation-prefix", "external-dns v0.23: also read external-dns.alpha.kubernetes.io/ annotations (zonekeeper reads both prefixes unless --annotation-prefix is set; =false reads only external-dns.kubernetes.io/, v0.23's strict default)")
	fs.BoolVar(&cfg.CombineFQDNAndAnnotation, "combine-fqdn-annotation", cfg.CombineFQDNAndAnnotation, "use --fqdn-template together with the hostname annotation")
	fs.BoolVar(&cfg.IgnoreHostnameAnnotation, "ignore-hostname-annotation", cfg.IgnoreHostnameAnnotation, "ignore the hostname annotation (requires --fqdn-template)")
	fs.BoolVar(&cfg.IgnoreIngressTLSSpec, "ignore-ingress-tls-spec", cfg.IgnoreIngressTLSSpec, "ignore spec.tls[].hosts of Ingresses")
	fs.BoolVar(&cfg.IgnoreIngressRulesSpec, "ignore-ingress-rules-spec", cfg.IgnoreIngressRulesSpec, "ignore spec.rules[].host of Ingresses")
	fs.BoolVar(&cfg.TraefikEnableLegacy, "traefik-enable-legacy", cfg.TraefikEnableLegacy, "traefik-proxy source: also read IngressRoutes of the legacy traefik.containo.us API group")
	fs.BoolVar(&cfg.TraefikDisableNew, "traefik-disable-new", cfg.TraefikDisableNew, "traefik-proxy source: do not read IngressRoutes of the traefik.io API group")
	fs.StringVar(&cfg.OpenShiftRouterName, "openshift-router-name", cfg.OpenShiftRouterName, "openshift-route source: publish a Route as the router of this name admitted it (status.ingress[].routerName), not the first admitting router")
	fs.StringVar(&cfg.SkipperRouteGroupVersion, "skipper-routegroup-groupversion", cfg.SkipperRouteGroupVersion, "skipper-routegroup source: the <group>/<version> of the RouteGroups to read (default "+skipper.DefaultGroupVersion+")")
	list(&cfg.GlooNamespaces, "gloo-namespace", "gloo-proxy source: a namespace whose Gloo Proxies are published (repeatable; default gloo-system)")
	fs.BoolVar(&cfg.PublishInternalServices, "publish-internal-services", cfg.PublishInternalServices, "publish ClusterIP services")
	fs.BoolVar(&cfg.PublishHostIP, "publish-host-ip", cfg.PublishHostIP, "publish the host IP of pods behind headless services")
	fs.BoolVar(&cfg.AlwaysPublishNotReadyAddresses, "always-publish-not-ready-addresses", cfg.AlwaysPublishNotReadyAddresses, "publish not-ready addresses of headless services")
	fs.BoolVar(&cfg.ExcludeUnschedulable, "exclude-unschedulable", cfg.ExcludeUnschedulable, "leave unschedulable nodes out of NodePort targets and the node source")
	fs.StringVar(&cfg.GatewayName, "gateway-name", cfg.GatewayName, "gateway-* sources: only routes attached to Gateways of this name")
	fs.StringVar(&cfg.GatewayNamespace, "gateway-namespace", cfg.GatewayNamespace, "gateway-* sources: only Gateways in this namespace")
	fs.StringVar(&cfg.GatewayLabelFilter, "gateway-label-filter", cfg.GatewayLabelFilter, "gateway-* sources: label selector the parent Gateways must match")
	fs.BoolVar(&cfg.GatewayListenerSets, "gateway-listener-sets", cfg.GatewayListenerSets, "gateway-* sources: also follow routes attached to ListenerSets (gateway.networking.k8s.io/v1, Gateway API v1.5)")
	fs.StringVar(&cfg.PodSourceDomain, "pod-source-domain", cfg.PodSourceDomain, "pod source: publish every pod as <pod name>.<domain>")
	fs.BoolVar(&cfg.IgnoreNonHostNetworkPods, "ignore-non-host-network-pods", cfg.IgnoreNonHostNetworkPods, "pod source: publish only pods with hostNetwork")
	fs.BoolVar(&cfg.ExposeInternalIPv6, "expose-internal-ipv6", cfg.ExposeInternalIPv6, "node source: publish a node's IPv6 InternalIPs next to its ExternalIPs")

	fs.Float64Var(&cfg.GuardMaxDeleteFraction, "guard-max-delete-fraction", cfg.GuardMaxDeleteFraction, "hold a zone's deletes when one plan would delete more than this share of the record sets zonekeeper owns there (0 turns the check off)")
	fs.Float64Var(&cfg.GuardMaxUpdateFraction, "guard-max-update-fraction", cfg.GuardMaxUpdateFraction, "hold a zone's updates when one plan would update more than this share of the record sets zonekeeper owns there (0, the default, turns the check off: a new load balancer address legitimately rewrites every record)")
	fs.IntVar(&cfg.GuardMinChanges, "guard-min-changes", cfg.GuardMinChanges, "a zone's deletes or updates up to this count are never held, so that small zones are not blocked")
	fs.DurationVar(&cfg.GuardWindow, "guard-window", cfg.GuardWindow, "deletes and updates applied within this time count together against the guard's thresholds, so a mass change cannot pass in slices")
	fs.DurationVar(&cfg.GuardSettle, "guard-settle", cfg.GuardSettle, "a delete waits this long after it is first planned, so the guard judges a burst of deletes whole (not with --once or zonekeeper plan)")
	list(&cfg.GuardConfirm, "guard-confirm", "digest of a held plan (from the log, /readyz or zonekeeper plan) to apply anyway (repeatable)")

	fs.StringVar(&cfg.Provider, "provider", cfg.Provider, "DNS provider: "+describeProviders(cfg))
	list(&cfg.ZoneIDFilter, "zone-id-filter", "only manage these hosted zone ids (repeatable)")
	fs.StringVar(&cfg.TLSCA, "tls-ca", cfg.TLSCA, "CA file for provider TLS connections")
	fs.StringVar(&cfg.TLSClientCert, "tls-client-cert", cfg.TLSClientCert, "client certificate for provider TLS connections")
	fs.StringVar(&cfg.TLSClientCertKey, "tls-client-cert-key", cfg.TLSClientCertKey, "key of the client certificate")
	for _, k := range providerkinds.All(&cfg.Settings) {
		k.Flags(fs)
	}
	fs.DurationVar(&cfg.WebhookProviderReadHeaderTimeout, "webhook-provider-read-header-timeout", cfg.WebhookProviderReadHeaderTimeout, "webhook server: time to read a request's headers")
	fs.DurationVar(&cfg.WebhookProviderIdleTimeout, "webhook-provider-idle-timeout", cfg.WebhookProviderIdleTimeout, "webhook server: how long an idle keep-alive connection stays open")
	fs.Int64Var(&cfg.WebhookProviderMaxBodySize, "webhook-provider-max-body-size", cfg.WebhookProviderMaxBodySize, "webhook server: largest request body in bytes, 413 past it (0: no limit)")
	fs.BoolVar(&cfg.WebhookServer, "webhook-server", cfg.WebhookServer, "serve --provider over the webhook protocol instead of running the controller (as 'zonekeeper webhook')")
	fs.StringVar(&cfg.WebhookServerAddress, "webhook-server-address", cfg.WebhookServerAddress, "address the webhook server listens on")

	fs.StringVar(&cfg.Registry, "registry", cfg.Registry, "ownership registry: txt, crd (external-dns's DNSRecord objects), noop")
	fs.StringVar(&cfg.CRDRegistryNamespace, "crd-registry-namespace", cfg.CRDRegistryNamespace, "namespace of the DNSRecord objects of --registry=crd (default: the kubeconfig context's or the pod's namespace, else default)")
	fs.StringVar(&cfg.TXTOwnerID, "txt-owner-id", cfg.TXTOwnerID, "owner id written into ownership TXT records")
	fs.StringVar(&cfg.MigrateFromTXTOwner, "migrate-from-txt-owner", cfg.MigrateFromTXTOwner, "take over the records of this owner id: they count as ours and their ownership TXTs are rewritten with --txt-owner-id")
	fs.StringVar(&cfg.TXTPrefix, "txt-prefix", cfg.TXTPrefix, "prefix of ownership TXT names (may contain %{record_type})")
	fs.StringVar(&cfg.TXTSuffix, "txt-suffix", cfg.TXTSuffix, "suffix of ownership TXT names (may contain %{record_type})")
	fs.StringVar(&cfg.TXTWildcardReplacement, "txt-wildcard-replacement", cfg.TXTWildcardReplacement, "label that replaces '*' in ownership TXT names")
	fs.BoolVar(&cfg.TXTEncryptEnabled, "txt-encrypt-enabled", cfg.TXTEncryptEnabled, "encrypt ownership TXT values with AES-256-GCM")
	fs.StringVar(&cfg.TXTEncryptAESKey, "txt-encrypt-aes-key", cfg.TXTEncryptAESKey, "AES-256 key: 32 bytes, raw or base64")

	fs.StringVar(&cfg.Policy, "policy", cfg.Policy, "sync, upsert-only or create-only")
	list(&cfg.ManagedRecordTypes, "managed-record-types", "record types to manage (repeatable)")
	list(&cfg.ExcludeRecordTypes, "exclude-record-types", "record types never to manage (repeatable)")
	list(&cfg.DomainFilter, "domain-filter", "only manage names under this domain (repeatable)")
	list(&cfg.ExcludeDomains, "exclude-domains", "never manage names under this domain (repeatable)")
	fs.StringVar(&cfg.RegexDomainFilter, "regex-domain-filter", cfg.RegexDomainFilter, "only manage names matching this regular expression (overrides --domain-filter)")
	fs.StringVar(&cfg.RegexDomainExclusion, "regex-domain-exclusion", cfg.RegexDomainExclusion, "never manage names matching this regular expression")

	fs.DurationVar(&cfg.Interval, "interval", cfg.Interval, "full resync period that heals drift")
	fs.DurationVar(&cfg.MinEventSyncInterval, "min-event-sync-interval", cfg.MinEventSyncInterval, "debounce: events within this window are applied together")
	fs.DurationVar(&cfg.ProviderCacheTime, "provider-cache-time", cfg.ProviderCacheTime, "how long the provider's records are trusted before a full relisting (0: a provider that probes its zones relists when a probe sees a change and at a period derived from its API budget; others at every --interval)")
	fs.BoolVar(&cfg.Once, "once", cfg.Once, "run one reconcile and exit")
	fs.BoolVar(&cfg.DryRun, "dry-run", cfg.DryRun, "compute and log changes without applying them")

	list(&cfg.Views, "view", "declare a view of the records, e.g. internal, external (repeatable; none: one view)")
	list(&cfg.ViewTargets, "view-targets", "NAME=reported|public: the view publishes the cluster's addresses or the public address")
	list(&cfg.ViewTTL, "view-ttl", "NAME=SECONDS: TTL of every record in the view")
	list(&cfg.ViewDomainFilter, "view-domain-filter", "NAME=DOMAIN: the view publishes only names under DOMAIN (repeatable)")
	list(&cfg.ViewExcludeDomains, "view-exclude-domains", "NAME=DOMAIN: the view never publishes names under DOMAIN (repeatable)")
	list(&cfg.ViewProvider, "view-provider", "NAME=KIND: the provider kind that publishes the view (default --provider)")
	list(&cfg.ViewSubnets, "view-subnets", "NAME=CIDR[,CIDR]: clients the built-in server answers from this view")
	list(&cfg.PublicIP, "public-ip", "public (WAN) address for views with targets=public; an IPv4 and/or an IPv6 address (repeatable)")
	fs.StringVar(&cfg.PublicIPFromNode, "public-ip-from-node", cfg.PublicIPFromNode, "take the public address from this Node's ExternalIP")
	fs.StringVar(&cfg.PublicIPFromService, "public-ip-from-service", cfg.PublicIPFromService, "NAMESPACE/NAME: take the public address from this Service's load-balancer status")
	fs.StringVar(&cfg.PublicIPEchoURL, "public-ip-echo-url", cfg.PublicIPEchoURL, "HTTP URL that answers the caller's address as plain text")
	fs.StringVar(&cfg.PublicIPSTUNServer, "public-ip-stun-server", cfg.PublicIPSTUNServer, "HOST:PORT of a STUN server (RFC 5389) to ask for the public address")
	list(&cfg.PublicIPSourceOrder, "public-ip-source-order", "order in which the configured sources are tried (default node,service,echo,stun,static)")
	fs.DurationVar(&cfg.PublicIPRefreshInterval, "public-ip-refresh-interval", cfg.PublicIPRefreshInterval, "how often the public address is looked up again")
	fs.DurationVar(&cfg.PublicIPLookupTimeout, "public-ip-lookup-timeout", cfg.PublicIPLookupTimeout, "time limit of one lookup")
	fs.BoolVar(&cfg.PublicIPAllowPrivate, "public-ip-allow-private", cfg.PublicIPAllowPrivate, "accept a private (RFC 1918, CGNAT, ULA…) address as the public one")
	fs.StringVar(&cfg.MetricsAddress, "metrics-address", cfg.MetricsAddress, "address serving /healthz, /readyz and /metrics (empty: off)")
	fs.BoolVar(&cfg.LeaderElect, "leader-elect", cfg.LeaderElect, "elect one leader among replicas through a coordination.k8s.io Lease; only the leader writes DNS")
	fs.DurationVar(&cfg.LeaderElectLeaseDuration, "leader-elect-lease-duration", cfg.LeaderElectLeaseDuration, "how long a lease is valid without renewal")
	fs.DurationVar(&cfg.LeaderElectRenewDeadline, "leader-elect-renew-deadline", cfg.LeaderElectRenewDeadline, "how long the leader keeps trying to renew before it stops leading")
	fs.DurationVar(&cfg.LeaderElectRetryPeriod, "leader-elect-retry-period", cfg.LeaderElectRetryPeriod, "how often candidates try to acquire or renew the lease")
	fs.StringVar(&cfg.LeaderElectNamespace, "leader-elect-namespace", cfg.LeaderElectNamespace, "namespace of the Lease (default: $POD_NAMESPACE, else default)")
	fs.StringVar(&cfg.LeaderElectLeaseName, "leader-elect-lease-name", cfg.LeaderElectLeaseName, "name of the Lease")
	fs.StringVar(&cfg.LogLevel, "log-level", cfg.LogLevel, "debug, info, warn or error")
	fs.StringVar(&cfg.LogFormat, "log-format", cfg.LogFormat, "text or json")

	noOps := acceptedNoOp()
	names := make([]string, 0, len(noOps))
	for n := range noOps {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		usage := "accepted for external-dns compatibility: " + noOps[n]
		if n == "events" || n == "aws-zone-match-parent" { // booleans in external-dns: accept them without a value, and --no-
			fs.Var(boolNoOp{}, n, usage)
			continue
		}
		fs.String(n, "", usage)
	}
	return fs
}

// joinedList is a repeatable string flag whose values are joined with commas (external-dns v0.22+
// --fqdn-template).
type joinedList struct {
	target *string
	set    bool
}

func (j *joinedList) String() string {
	if j.target == nil {
		return ""
	}
	return *j.target
}

func (j *joinedList) Set(v string) error {
	if j.set && *j.target != "" {
		v = *j.target + "," + v
	}
	*j.target, j.set = v, true
	return nil
}

// optionalBool is a boolean flag that remembers whether it was given: "" (not given), "true", "false".
type optionalBool struct{ target *string }

func (o *optionalBool) String() string {
	if o.target == nil {
		return ""
	}
	return *o.target
}

func (o *optionalBool) Set(v string) error {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return err
	}
	*o.target = strconv.FormatBool(b)
	return nil
}

func (o *optionalBool) IsBoolFlag() bool { return true }

type boolNoOp struct{}

func (boolNoOp) String() string   { return "false" }
func (boolNoOp) Set(string) error { return nil }
func (boolNoOp) IsBoolFlag() bool { return true }

// Parse fills a Config from the command line, then from EXTERNAL_DNS_<FLAG> (or ZONEKEEPER_<FLAG>)
// environment variables for flags not given on the command line, as external-dns does. Several values
// of a repeatable flag are separated by newlines in the environment. It returns flag.ErrHelp for -h.
func Parse(name string, args []string, getenv func(string) string, output io.Writer) (Config, []string, error) {
	cfg := Default()
	fs := NewFlagSet(name, &cfg, output)
	if err := fs.Parse(negatedBools(fs, args)); err != nil {
		return cfg, nil, err
	}
	given := setFlags(fs)
	var envErr error
	fs.VisitAll(func(f *flag.Flag) {
		if given[f.Name] || envErr != nil {
			return
		}
		key := strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		v := getenv("ZONEKEEPER_" + key)
		if v == "" {
			v = getenv("EXTERNAL_DNS_" + key)
		}
		if v == "" {
			return
		}
		for _, part := range strings.Split(v, "\n") {
			if err := fs.Set(f.Name, strings.TrimSpace(part)); err != nil {
				envErr = fmt.Errorf("environment %s: %w", key, err)
				return
			}
		}
	})
	if envErr != nil {
		return cfg, nil, envErr
	}
	set := setFlags(fs) // fs.Set from the environment counts as set
	cfg.NotApplied = append(notApplied(set), notAppliedForProvider(cfg.Provider, set)...)
	cfg.NotApplied = append(cfg.NotApplied, notAppliedTemplates(cfg.Sources, set)...)
	if err := cfg.Validate(); err != nil {
		return cfg, nil, err
	}
	return cfg, fs.Args(), nil
}

// negatedBools rewrites kingpin's --no-FLAG form of a boolean flag (which external-dns command lines
// use, e.g. --no-aws-evaluate-target-health) into --FLAG=false.
func negatedBools(fs *flag.FlagSet, args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		name, ok := strings.CutPrefix(a, "--no-")
		if !ok || strings.Contains(name, "=") {
			continue
		}
		if f := fs.Lookup(name); f != nil {
			if b, isBool := f.Value.(interface{ IsBoolFlag() bool }); isBool && b.IsBoolFlag() {
				out[i] = "--" + name + "=false"
			}
		}
	}
	return out
}

// ParseOS is Parse over os.Args and the process environment.
func ParseOS(name string, args []string, output io.Writer) (Config, []string, error) {
	return Parse(name, args, os.Getenv, output)
}

// Validate checks settings that depend on each other. Each error names the flag.
func (c *Config) Validate() error {
	if c.PrintVersion {
		return nil
	}
	var errs []error
	for _, f := range []struct {
		flag  string
		cidrs []string
	}{{"--target-net-filter", c.TargetNetFilter}, {"--exclude-target-net", c.ExcludeTargetNets}} {
		for _, cidr := range f.cidrs {
			if _, err := netip.ParsePrefix(cidr); err != nil {
				errs = append(errs, fmt.Errorf("%s=%s: not a CIDR: %v", f.flag, cidr, err))
			}
		}
	}
	hostnames := 0
	for _, t := range c.DefaultTargets {
		if _, err := netip.ParseAddr(t); err != nil {
			hostnames++
		}
	}
	if hostnames > 1 || (hostnames == 1 && len(c.DefaultTargets) > 1) {
		errs = append(errs, errors.New("--default-targets: IP addresses, or one hostname (it becomes a CNAME, which cannot stand beside other records)"))
	}
	if c.ForceDefaultTargets && len(c.DefaultTargets) == 0 {
		errs = append(errs, errors.New("--force-default-targets needs --default-targets"))
	}
	if c.CreatePTR && !c.PTRManaged() {
		errs = append(errs, errors.New("--create-ptr needs PTR in --managed-record-types (and not in --exclude-record-types)"))
	}
	errs = append(errs, refusedErrors(c.Refused)...)
	if c.CRDSourceAPIVersion != "externaldns.k8s.io/v1alpha1" || c.CRDSourceKind != "DNSEndpoint" {
		errs = append(errs, fmt.Errorf("--crd-source-apiversion=%s --crd-source-kind=%s: only externaldns.k8s.io/v1alpha1 DNSEndpoint is served", c.CRDSourceAPIVersion, c.CRDSourceKind))
	}
	for _, g := range []struct {
		flag  string
		share float64
	}{{"--guard-max-delete-fraction", c.GuardMaxDeleteFraction}, {"--guard-max-update-fraction", c.GuardMaxUpdateFraction}} {
		if g.share < 0 || g.share > 1 {
			errs = append(errs, fmt.Errorf("%s=%g: want a share between 0 and 1", g.flag, g.share))
		}
	}
	if c.GuardMinChanges < 0 {
		errs = append(errs, errors.New("--guard-min-changes must not be negative"))
	}
	if c.WebhookProviderMaxBodySize < 0 {
		errs = append(errs, errors.New("--webhook-provider-max-body-size must not be negative (0: no limit)"))
	}
	if c.EnableLegacyAnnotationPrefix != "" && c.AnnotationPrefix != "" && c.AnnotationPrefix != "external-dns.kubernetes.io/" {
		errs = append(errs, fmt.Errorf("--enable-legacy-annotation-prefix with --annotation-prefix=%s: zonekeeper reads one custom prefix, or external-dns's two", c.AnnotationPrefix))
	}
	if c.MinTTL < 0 {
		errs = append(errs, errors.New("--min-ttl must not be negative"))
	}
	if len(c.Sources) == 0 && !c.WebhookServer && !c.PrintVersion {
		errs = append(errs, fmt.Errorf("--source: at least one source is required (%s)", strings.Join(kinds.Names(), ", ")))
	}
	for _, s := range c.Sources {
		if err := checkSourceName(s); err != nil {
			errs = append(errs, err)
		}
		if s == "manifest" && c.Manifest == "" {
			errs = append(errs, errors.New("--source=manifest needs --manifest=FILE|DIR"))
		}
	}
	errs = append(errs, c.validateProvider()...)
	if c.WebhookServer && len(c.Views) > 0 {
		errs = append(errs, errors.New("--webhook-server with --view: the protocol has no views; run one webhook server per view"))
	}
	switch c.Registry {
	case "txt", "noop", "crd":
	default:
		errs = append(errs, fmt.Errorf("--registry=%s: unknown registry (supported: txt, crd, noop)", c.Registry))
	}
	if c.CRDRegistryNamespace != "" && c.Registry != "crd" {
		errs = append(errs, fmt.Errorf("--crd-registry-namespace needs --registry=crd (--registry=%s keeps no DNSRecords)", c.Registry))
	}
	if c.Registry == "crd" && c.TXTOwnerID == "" {
		errs = append(errs, errors.New("--txt-owner-id must not be empty: --registry=crd writes it into the owner label of its DNSRecords"))
	}
	if c.Registry == "crd" && len(c.Views) > 0 {
		errs = append(errs, errors.New("--registry=crd with --view: the views' records would share one DNSRecord per name; use --registry=txt"))
	}
	if c.MigrateFromTXTOwner != "" && c.Registry != "txt" {
		errs = append(errs, errors.New("--migrate-from-txt-owner needs --registry=txt"))
	}
	if c.Registry == "txt" && c.TXTOwnerID == "" {
		errs = append(errs, errors.New("--txt-owner-id must not be empty"))
	}
	if c.TXTPrefix != "" && c.TXTSuffix != "" {
		errs = append(errs, errors.New("--txt-prefix and --txt-suffix cannot be used together"))
	}
	if c.TXTEncryptEnabled && c.TXTEncryptAESKey == "" {
		errs = append(errs, errors.New("--txt-encrypt-enabled needs --txt-encrypt-aes-key"))
	}
	if c.TraefikDisableNew && !c.TraefikEnableLegacy && slices.Contains(c.Sources, "traefik-proxy") {
		errs = append(errs, errors.New("--traefik-disable-new without --traefik-enable-legacy leaves --source=traefik-proxy nothing to read"))
	}
	if _, err := skipper.ParseGroupVersion(c.SkipperRouteGroupVersion); err != nil && slices.Contains(c.Sources, "skipper-routegroup") {
		errs = append(errs, err)
	}
	if c.IgnoreHostnameAnnotation && c.FQDNTemplate == "" {
		errs = append(errs, errors.New("--ignore-hostname-annotation needs --fqdn-template"))
	}
	switch c.Policy {
	case "sync", "upsert-only", "create-only":
	default:
		errs = append(errs, fmt.Errorf("--policy=%s: must be sync, upsert-only or create-only", c.Policy))
	}
	if c.Interval <= 0 {
		errs = append(errs, errors.New("--interval must be positive"))
	}
	if c.MinEventSyncInterval < 0 {
		errs = append(errs, errors.New("--min-event-sync-interval must not be negative"))
	}
	if c.LeaderElect {
		if c.LeaderElectRenewDeadline >= c.LeaderElectLeaseDuration {
			errs = append(errs, errors.New("--leader-elect-renew-deadline must be shorter than --leader-elect-lease-duration"))
		}
		if c.LeaderElectRetryPeriod <= 0 || c.LeaderElectRetryPeriod >= c.LeaderElectRenewDeadline {
			errs = append(errs, errors.New("--leader-elect-retry-period must be positive and shorter than --leader-elect-renew-deadline"))
		}
		if c.LeaderElectLeaseName == "" {
			errs = append(errs, errors.New("--leader-elect-lease-name must not be empty"))
		}
		if !c.NeedsCluster() {
			errs = append(errs, errors.New("--leader-elect needs a Kubernetes API: use it with a source that reads the cluster (service, ingress, ...)"))
		}
	}
	switch c.LogFormat {
	case "text", "json":
	default:
		errs = append(errs, fmt.Errorf("--log-format=%s: must be text or json", c.LogFormat))
	}
	switch strings.ToLower(c.LogLevel) {
	case "debug", "info", "warn", "warning", "error", "trace", "fatal", "panic":
	default:
		errs = append(errs, fmt.Errorf("--log-level=%s: must be debug, info, warn or error", c.LogLevel))
	}
	return errors.Join(errs...)
}
