package source

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
)

// lastAppliedAnnotation is kubectl's copy of the whole applied object: large and never read here.
const lastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// trimObject is the informer transform: it drops what the sources never read before the object enters
// the cache, to keep memory down in large clusters (external-dns #5595). Pods are cut down to the few
// fields generation reads, since they are by far the most numerous objects watched.
func trimObject(obj any) (any, error) {
	if p, ok := obj.(*corev1.Pod); ok {
		obj = slimPod(p)
	}
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
