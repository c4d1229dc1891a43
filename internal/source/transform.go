package source

import (
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/meta"
)

// lastAppliedAnnotation is kubectl's copy of the whole applied object: large and never read here.
const lastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// trimObject is the informer transform: it drops what the sources never read before the object enters
// the cache, to keep memory down in large clusters (external-dns #5595). Pods are cut down to the few
// fields generation reads, since they are by far the most numerous objects watched.
func trimObject(obj any) (any, error) {
	switch o := obj.(type) {
	case *corev1.Pod:
		obj = slimPod(o)
	case *networkingv1.Ingress:
		slimIngress(o)
	}
	return trimMeta(obj)
}

// trimMeta drops what trimObject drops of every object: its managed fields and kubectl's
// last-applied copy, as external-dns's informer transforms do.
func trimMeta(obj any) (any, error) {
	if m, err := meta.Accessor(obj); err == nil {
		m.SetManagedFields(nil)
		if ann := m.GetAnnotations(); ann != nil {
			if _, ok := ann[lastAppliedAnnotation]; ok {
				delete(ann, lastAppliedAnnotation)
				m.SetAnnotations(ann)
			}
		}
	}
	return obj, nil
}

// slimPod keeps what service generation reads of a pod: identity, labels and annotations, hostname,
// node, phase, readiness and addresses.
func slimPod(p *corev1.Pod) *corev1.Pod {
	out := &corev1.Pod{
		TypeMeta:   p.TypeMeta,
		ObjectMeta: p.ObjectMeta,
		Spec: corev1.PodSpec{
			Hostname:    p.Spec.Hostname,
			Subdomain:   p.Spec.Subdomain,
			NodeName:    p.Spec.NodeName,
			HostNetwork: p.Spec.HostNetwork,
		},
		Status: corev1.PodStatus{
			Phase:   p.Status.Phase,
			HostIP:  p.Status.HostIP,
			HostIPs: p.Status.HostIPs,
			PodIP:   p.Status.PodIP,
			PodIPs:  p.Status.PodIPs,
		},
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			out.Status.Conditions = []corev1.PodCondition{{Type: c.Type, Status: c.Status}}
		}
	}
	return out
}

// slimIngress drops, in place, what no source reads of an Ingress: its paths and backends
// (spec.rules[].http, spec.defaultBackend) and the ports of its load balancer addresses. The rules stay,
// each with its host, so that a problem still names spec.rules[i] by the object's own index. On an
// Ingress with two paths a rule this is about a third of what is cached (TestTrimmedIngressBytes).
// A TLS host that is also a rule's host (the usual Ingress) becomes the rule's string, not a copy.
func slimIngress(ing *networkingv1.Ingress) {
	ing.Spec.DefaultBackend = nil
	for i := range ing.Spec.Rules {
		ing.Spec.Rules[i].HTTP = nil
	}
	for i := range ing.Status.LoadBalancer.Ingress {
		ing.Status.LoadBalancer.Ingress[i].Ports = nil
	}
	for _, tls := range ing.Spec.TLS {
		for j, h := range tls.Hosts {
			for _, r := range ing.Spec.Rules {
				if r.Host == h {
					tls.Hosts[j] = r.Host
					break
				}
			}
		}
	}
}
