package source

import (
	"fmt"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// ingressEndpoints turns one Ingress into endpoints. It is pure, like serviceEndpoints.
func (c *compiled) ingressEndpoints(ing *networkingv1.Ingress, problems *problemList) []*endpoint.Endpoint {
	return c.cachedIngressEndpoints(compactIngress(ing), ing, problems)
}

// cachedIngressEndpoints is ingressEndpoints over what the cache keeps of an Ingress; full is the
// whole Ingress when the cache holds it, which the templates read (nil for a cachedIngress).
func (c *compiled) cachedIngressEndpoints(ing *cachedIngress, full *networkingv1.Ingress, problems *problemList) []*endpoint.Endpoint {
	o := &objectInput{
		ref:         endpoint.ObjectRef{Kind: "Ingress", Namespace: ing.Namespace, Name: ing.Name},
		annotations: ing.Annotations,
		reader:      c.annotations,
		problems:    problems,
	}
	if !c.admitsIngressClass(ing.Class, ing.Annotations) || !c.admitsObject(o, ing.Labels) {
		return nil
	}
	o.reportUnreadKeys("Ingress", ingressUnread())
	o.reportUnknown()
	meta := recordMeta{
		resource:         ingressKind + "/" + ing.Namespace + "/" + ing.Name,
		ttl:              o.ttl(),
		setIdentifier:    o.setIdentifier(),
		providerSpecific: o.providerSpecific(),
	}
	t, overridden := o.annotationTargets()
	if !overridden {
		t = ingressStatusTargets(o, ing)
	}

	source := o.choice(keyIngressHostnameSource, hostnameSourceAnnotation, hostnameSourceDefined)
	var hosts []string
	if source != hostnameSourceAnnotation {
		hosts = append(hosts, c.ingressSpecHosts(o, ing)...)
	}
	if source != hostnameSourceDefined && !c.IgnoreHostnameAnnotation {
		hosts = append(hosts, o.hostnames(keyHostname)...)
	}
	if c.fqdnTemplate != nil && (c.CombineFQDNAndAnnotation || len(hosts) == 0) {
		hosts = append(hosts, c.ingressTemplateHostnames(o, full)...)
	}

	var eps []*endpoint.Endpoint
	for _, h := range hosts {
		eps = append(eps, meta.endpointsFor(h, t)...)
	}
	return mergeEndpoints(eps)
}

// ingressSpecHosts returns the valid hosts of spec.rules and spec.tls, unless ignored by flag.
func (c *compiled) ingressSpecHosts(o *objectInput, ing *cachedIngress) []string {
	var hosts []string
	// The field is formatted only for a problem: every source pass reads every host of every object.
	add := func(h string, field func() string) {
		if h == "" {
			return
		}
		n, err := endpoint.NormalizeDNSName(h)
		if err != nil {
			o.problem(field(), h, err.Error())
			return
		}
		hosts = append(hosts, n)
	}
	if !c.IgnoreIngressRulesSpec {
		for i, h := range ing.Rules {
			add(h, func() string { return fmt.Sprintf("spec.rules[%d].host", i) })
		}
	}
	if !c.IgnoreIngressTLSSpec {
		for i, hosts := range ing.TLS {
			for j, h := range hosts {
				add(h, func() string { return fmt.Sprintf("spec.tls[%d].hosts[%d]", i, j) })
			}
		}
	}
	return hosts
}

// ingressStatusTargets returns every status.loadBalancer.ingress ip and hostname.
func ingressStatusTargets(o *objectInput, ing *cachedIngress) targets {
	var t targets
	for i, lb := range ing.Addresses {
		if lb.IP != "" {
			t.addIndexed(o, "status.loadBalancer.ingress[%d].ip", i, lb.IP)
		}
		if lb.Hostname != "" {
			t.addIndexed(o, "status.loadBalancer.ingress[%d].hostname", i, lb.Hostname)
		}
	}
	return t
}

// ingressTemplateHostnames is templateHostnames over the whole Ingress. The informer keeps whole
// Ingresses when a template is configured (ingressTransform); were a compact one read here all the
// same, that is a problem on the object, never names rendered from fields it does not hold.
func (c *compiled) ingressTemplateHostnames(o *objectInput, full *networkingv1.Ingress) []string {
	if full == nil {
		o.problem("--fqdn-template", c.FQDNTemplate, "the Ingress cache holds this Ingress without the fields a template reads")
		return nil
	}
	return c.templateHostnames(o, full)
}
