package source

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// serviceEndpoints turns one Service into endpoints. It is pure: it reads only the service, the
// cluster state and the configuration, and reports bad input in problems.
func (c *compiled) serviceEndpoints(svc *corev1.Service, state clusterState, problems *problemList) []*endpoint.Endpoint {
	o := &objectInput{
		ref:         endpoint.ObjectRef{Kind: "Service", Namespace: svc.Namespace, Name: svc.Name},
		annotations: svc.Annotations,
		reader:      c.annotations,
		problems:    problems,
	}
	if !c.wantsServiceType(svc.Spec.Type) || !c.admitsObject(o, svc.Labels) {
		return nil
	}
	o.reportUnreadKeys(serviceKind(svc), serviceUnread(svc))
	o.reportUnknown()
	g := &serviceGeneration{c: c, o: o, svc: svc, state: state, meta: recordMeta{
		resource:         serviceResourceKind + "/" + svc.Namespace + "/" + svc.Name,
		ttl:              o.ttl(),
		setIdentifier:    o.setIdentifier(),
		providerSpecific: o.providerSpecific(),
	}}
	g.override, g.hasOverride = o.annotationTargets()

	var eps []*endpoint.Endpoint
	if !c.IgnoreHostnameAnnotation {
		for _, h := range o.hostnames(keyHostname) {
			eps = append(eps, g.endpointsFor(h, false)...)
		}
		for _, h := range o.hostnames(keyInternalHostname) {
			eps = append(eps, g.endpointsFor(h, true)...)
		}
	}
	// The templates, in external-dns v0.23's order: the --fqdn-target-template pairs, then the
	// --fqdn-template names pointing at the service's own targets (template_targets.go).
	typed := *svc // a shallow copy with its kind set, for templates reading .Kind
	typed.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Service"}
	if c.templatePassRuns(len(eps)) {
		eps = append(eps, c.templatePairs(o, g.meta, &typed)...)
	}
	if c.fqdnTemplate != nil && c.templatePassRuns(len(eps)) {
		for _, h := range c.templateHostnames(o, &typed) {
			eps = append(eps, g.endpointsFor(h, false)...)
		}
	}
	return mergeEndpoints(eps)
}

// serviceGeneration holds one service's inputs and caches the targets that do not depend on the
// hostname, so a service with several hostnames reads its nodes and pods once.
type serviceGeneration struct {
	c     *compiled
	o     *objectInput
	svc   *corev1.Service
	state clusterState
	meta  recordMeta

	override    targets
	hasOverride bool

	external, internal *targets // LoadBalancer/NodePort/... targets, and ClusterIP ones
	headless           *headlessTargets
}

// endpointsFor returns the endpoints of one hostname. internal is true for the internal-hostname
// annotation, which points LoadBalancer and ClusterIP services at their ClusterIP.
func (g *serviceGeneration) endpointsFor(hostname string, internal bool) []*endpoint.Endpoint {
	if g.hasOverride {
		return g.meta.endpointsFor(hostname, g.override)
	}
	svc := g.svc
	switch svc.Spec.Type {
	case corev1.ServiceTypeLoadBalancer:
		if internal {
			return g.meta.endpointsFor(hostname, g.clusterIPTargets())
		}
		if g.external == nil {
			t := g.loadBalancerTargets()
			g.external = &t
		}
		return g.meta.endpointsFor(hostname, *g.external)
	case corev1.ServiceTypeClusterIP, "":
		if svc.Spec.ClusterIP == corev1.ClusterIPNone {
			if g.headless == nil {
				g.headless = g.headlessTargets()
			}
			return g.headless.endpointsFor(g, hostname)
		}
		if internal || g.c.PublishInternalServices {
			return g.meta.endpointsFor(hostname, g.clusterIPTargets())
		}
		return nil
	case corev1.ServiceTypeNodePort:
		if g.external == nil {
			t := g.nodePortTargets()
			g.external = &t
		}
		return append(g.meta.endpointsFor(hostname, *g.external), g.nodePortSRV(hostname)...)
	case corev1.ServiceTypeExternalName:
		if g.external == nil {
			t := g.externalNameTargets()
			g.external = &t
		}
		return g.meta.endpointsFor(hostname, *g.external)
	}
	return nil
}

// clusterIPTargets returns spec.clusterIP (external-dns publishes only the primary family).
func (g *serviceGeneration) clusterIPTargets() targets {
	if g.internal != nil {
		return *g.internal
	}
	var t targets
	if ip := g.svc.Spec.ClusterIP; ip != "" && ip != corev1.ClusterIPNone {
		t.add(g.o, "spec.clusterIP", ip)
	}
	g.internal = &t
	return t
}

// loadBalancerTargets returns spec.externalIPs when set, otherwise the load balancer's addresses and
// hostnames from status.
func (g *serviceGeneration) loadBalancerTargets() targets {
	var t targets
	if len(g.svc.Spec.ExternalIPs) > 0 {
		for i, ip := range g.svc.Spec.ExternalIPs {
			t.addIndexed(g.o, "spec.externalIPs[%d]", i, ip)
		}
		return t
	}
	for i, lb := range g.svc.Status.LoadBalancer.Ingress {
		if lb.IP != "" {
			t.addIndexed(g.o, "status.loadBalancer.ingress[%d].ip", i, lb.IP)
		}
		if lb.Hostname != "" {
			t.addIndexed(g.o, "status.loadBalancer.ingress[%d].hostname", i, lb.Hostname)
		}
	}
	return t
}

// externalNameTargets returns spec.externalIPs when set, otherwise spec.externalName.
func (g *serviceGeneration) externalNameTargets() targets {
	var t targets
	if len(g.svc.Spec.ExternalIPs) > 0 {
		for i, ip := range g.svc.Spec.ExternalIPs {
			t.addIndexed(g.o, "spec.externalIPs[%d]", i, ip)
		}
		return t
	}
	if g.svc.Spec.ExternalName != "" {
		t.add(g.o, "spec.externalName", g.svc.Spec.ExternalName)
	}
	return t
}
