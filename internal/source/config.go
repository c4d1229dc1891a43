package source

import (
	"fmt"
	"slices"
	"strings"
	"text/template"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Config holds the source settings. Field names mirror the external-dns flags so that the controller
// can map flags onto it one to one.
type Config struct {
	// Namespace limits the sources to one namespace (--namespace); empty means all namespaces.
	Namespace string
	// AnnotationPrefix (--annotation-prefix) is the prefix of every zonekeeper annotation, ending in
	// "/". Empty means the default: both "external-dns.kubernetes.io/" and
	// "external-dns.alpha.kubernetes.io/" are read, and the GA prefix wins when an object sets both.
	// Any other value reads only that prefix. The controller should leave it empty unless the user
	// passed the flag.
	AnnotationPrefix string
	// LabelFilter (--label-filter) is a label selector objects must match.
	LabelFilter string
	// AnnotationFilter (--annotation-filter) is a label selector evaluated against annotations.
	AnnotationFilter string
	// IngressClassNames (--ingress-class, repeatable) keeps only ingresses of these classes.
	IngressClassNames []string
	// ServiceTypeFilter (--service-type-filter, repeatable) keeps only services of these types; empty
	// keeps all. It also decides which of the node, pod and EndpointSlice informers start.
	ServiceTypeFilter []string
	// FQDNTemplate (--fqdn-template) is a Go text/template over the object giving comma-separated
	// hostnames; used only when the object names no hostname itself.
	FQDNTemplate string
	// TargetTemplate (--target-template) gives comma-separated targets for the --fqdn-template names of
	// the gloo-proxy, traefik-proxy and f5 sources; FQDNTargetTemplate (--fqdn-target-template) gives
	// comma-separated "host:target" pairs on those and the service, node and pod sources
	// (template_targets.go). Repeated flags arrive joined with commas, as external-dns v0.22+ joins them.
	TargetTemplate, FQDNTargetTemplate string
	// CombineFQDNAndAnnotation (--combine-fqdn-annotation) uses template and annotation hostnames together.
	CombineFQDNAndAnnotation bool
	// IgnoreHostnameAnnotation (--ignore-hostname-annotation) ignores the hostname and internal-hostname
	// annotations; it requires FQDNTemplate.
	IgnoreHostnameAnnotation bool
	// IgnoreIngressTLSSpec (--ignore-ingress-tls-spec) ignores spec.tls[].hosts of ingresses.
	IgnoreIngressTLSSpec bool
	// IgnoreIngressRulesSpec (--ignore-ingress-rules-spec) ignores spec.rules[].host of ingresses.
	IgnoreIngressRulesSpec bool
	// PublishInternalServices (--publish-internal-services) publishes the ClusterIP of ClusterIP services.
	PublishInternalServices bool
	// PublishHostIP (--publish-host-ip) publishes the pod's host IP for headless services.
	PublishHostIP bool
	// AlwaysPublishNotReadyAddresses (--always-publish-not-ready-addresses) publishes not-ready
	// addresses of headless services as if spec.publishNotReadyAddresses were set.
	AlwaysPublishNotReadyAddresses bool
	// ExcludeUnschedulable (--exclude-unschedulable) leaves cordoned nodes out of NodePort targets.
	// The flag defaults to true; DefaultConfig sets it, the zero Config does not.
	ExcludeUnschedulable bool
	// DefaultTargets (--default-targets) are the targets of DNSEndpoint A, AAAA and CNAME entries that
	// list none, as in external-dns. (With --force-default-targets, PostProcess applies them to every
	// source.)
	DefaultTargets []string
	// TraefikEnableLegacy (--traefik-enable-legacy) and TraefikDisableNew (--traefik-disable-new) pick the
	// API groups the traefik-proxy source reads: traefik.io unless disabled, traefik.containo.us when
	// enabled.
	TraefikEnableLegacy, TraefikDisableNew bool
	// OpenShiftRouterName (--openshift-router-name) makes the openshift-route source read the status of
	// that router only.
	OpenShiftRouterName string
	// SkipperRouteGroupVersion (--skipper-routegroup-groupversion) is the group and version the
	// skipper-routegroup source reads RouteGroups in; empty means zalando.org/v1.
	SkipperRouteGroupVersion string
	// GlooNamespaces (--gloo-namespace) are the namespaces whose Proxies the gloo-proxy source publishes;
	// empty means gloo-system.
	GlooNamespaces []string
	// GatewayName (--gateway-name), GatewayNamespace (--gateway-namespace) and GatewayLabelFilter
	// (--gateway-label-filter) select the parent Gateways the gateway-* sources follow.
	GatewayName, GatewayNamespace, GatewayLabelFilter string
	// GatewayListenerSets (--gateway-listener-sets) makes the gateway-* sources follow routes attached
	// to ListenerSets too.
	GatewayListenerSets bool
	// PodSourceDomain (--pod-source-domain) publishes every pod as <name>.<domain> (pod source).
	PodSourceDomain string
	// IgnoreNonHostNetworkPods (--ignore-non-host-network-pods) keeps only hostNetwork pods (pod source).
	IgnoreNonHostNetworkPods bool
	// ExposeInternalIPv6 (--expose-internal-ipv6) adds a node's IPv6 InternalIPs to its ExternalIPs
	// (node source).
	ExposeInternalIPv6 bool
	// SkipResources are optional resources ("endpointslices.discovery.k8s.io") that RBAC denies: the
	// source runs without them (set by Deferred, not by a flag).
	SkipResources []string
	// ProviderProperties are the provider kinds that read provider-specific properties. A property
	// ("cloudflare/proxied" from a cloudflare- annotation, alias from the alias annotation, or a
	// DNSEndpoint's providerSpecific entry) that no kind configured in this process reads, in any view,
	// is a problem on its object naming the annotation or the field, and is dropped: external-dns
	// drops another provider's namespaced one without a word, and keeps alias for every provider. One that some view's kind reads is kept; each view's provider drops what its kind does not
	// read (provider.OwnPropertiesOnly). nil: every property is kept and none is reported.
	ProviderProperties *PropertyReaders
}

// PropertyReaders are the provider kinds of the process, for Config.ProviderProperties.
type PropertyReaders struct {
	// Configured are the kinds this process publishes with (--provider and every --view-provider).
	Configured []string
	// ReadBy returns every kind, configured or not, whose provider reads the named property.
	ReadBy func(name string) []string
}

// unread says why the named property is not applied: no configured kind reads it. It returns ""
// when one does, and when r is nil. A name without "/" is a provider's when some kinds read it
// (alias: Route 53 and a webhook's server), and then reported as a namespaced one; one that every
// kind passes is no provider's (record-type) and never reported.
func (r *PropertyReaders) unread(name string) string {
	if r == nil {
		return ""
	}
	readers := r.ReadBy(name)
	for _, k := range readers {
		if slices.Contains(r.Configured, k) {
			return ""
		}
	}
	configured := "--provider=" + strings.Join(r.Configured, "") + " does not read it"
	if len(r.Configured) > 1 {
		configured = "none of the providers configured (" + strings.Join(r.Configured, ", ") + ") reads it"
	}
	if len(readers) == 0 {
		return "no provider reads this property; " + configured + ": not applied"
	}
	return "read only by --provider=" + strings.Join(readers, ", --provider=") + "; " + configured + ": not applied"
}

// DefaultConfig returns the flag defaults.
func DefaultConfig() Config {
	return Config{ExcludeUnschedulable: true}
}

// ingressClassAnnotation is the pre-IngressClass way to name an ingress's class.
const ingressClassAnnotation = "kubernetes.io/ingress.class"

// serviceTypes lists the values --service-type-filter accepts.
var serviceTypes = []corev1.ServiceType{
	corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort, corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeExternalName,
}

// compiled is a Config checked and parsed once, shared by every generation pass.
type compiled struct {
	Config
	annotations        annotationReader
	labelSelector      labels.Selector // nil: no filter
	annotationSelector labels.Selector // nil: no filter
	fqdnTemplate       *template.Template
	targetTemplate     *template.Template
	fqdnTargetTemplate *template.Template
	ingressClasses     map[string]bool             // nil: every class
	serviceTypes       map[corev1.ServiceType]bool // nil: every type
}

// compile validates the configuration; every error names the flag it comes from.
func compile(cfg Config) (*compiled, error) {
	c := &compiled{Config: cfg}
	var err error
	if c.annotations, err = newAnnotationReader(cfg.AnnotationPrefix); err != nil {
		return nil, err
	}
	c.annotations.properties = cfg.ProviderProperties
	if s := strings.TrimSpace(cfg.LabelFilter); s != "" {
		if c.labelSelector, err = labels.Parse(s); err != nil {
			return nil, fmt.Errorf("--label-filter %q: %w", cfg.LabelFilter, err)
		}
	}
	if s := strings.TrimSpace(cfg.AnnotationFilter); s != "" {
		if c.annotationSelector, err = labels.Parse(s); err != nil {
			return nil, fmt.Errorf("--annotation-filter %q: %w", cfg.AnnotationFilter, err)
		}
	}
	if s := strings.TrimSpace(cfg.GatewayLabelFilter); s != "" {
		if _, err := labels.Parse(s); err != nil { // the gateway sources parse it again; fail at start, not when they start
			return nil, fmt.Errorf("--gateway-label-filter %q: %w", cfg.GatewayLabelFilter, err)
		}
	}
	for _, t := range []struct {
		flag, text string
		into       **template.Template
	}{
		{"--fqdn-template", cfg.FQDNTemplate, &c.fqdnTemplate},
		{"--target-template", cfg.TargetTemplate, &c.targetTemplate},
		{"--fqdn-target-template", cfg.FQDNTargetTemplate, &c.fqdnTargetTemplate},
	} {
		if *t.into, err = parseTemplate(t.flag, t.text); err != nil {
			return nil, fmt.Errorf("%s %q: %w", t.flag, t.text, err)
		}
	}
	if cfg.IgnoreHostnameAnnotation && c.fqdnTemplate == nil {
		return nil, fmt.Errorf("--ignore-hostname-annotation requires --fqdn-template")
	}
	if len(cfg.IngressClassNames) > 0 {
		if c.annotationSelector != nil {
			reqs, _ := c.annotationSelector.Requirements()
			for _, r := range reqs {
				if r.Key() == ingressClassAnnotation {
					return nil, fmt.Errorf("--ingress-class and an --annotation-filter on %s are mutually exclusive", ingressClassAnnotation)
				}
			}
		}
		c.ingressClasses = make(map[string]bool, len(cfg.IngressClassNames))
		for _, n := range cfg.IngressClassNames {
			c.ingressClasses[n] = true
		}
	}
	if len(cfg.ServiceTypeFilter) > 0 {
		c.serviceTypes = make(map[corev1.ServiceType]bool, len(cfg.ServiceTypeFilter))
		for _, t := range cfg.ServiceTypeFilter {
			st, ok := parseServiceType(t)
			if !ok {
				return nil, fmt.Errorf("--service-type-filter %q: must be one of %v", t, serviceTypes)
			}
			c.serviceTypes[st] = true
		}
	}
	return c, nil
}

func parseServiceType(s string) (corev1.ServiceType, bool) {
	for _, t := range serviceTypes {
		if strings.EqualFold(string(t), strings.TrimSpace(s)) {
			return t, true
		}
	}
	return "", false
}

// wantsServiceType reports whether --service-type-filter lets services of this type through.
func (c *compiled) wantsServiceType(t corev1.ServiceType) bool {
	if t == "" {
		t = corev1.ServiceTypeClusterIP // the API server's default
	}
	return c.serviceTypes == nil || c.serviceTypes[t]
}
