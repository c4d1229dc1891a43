package ambassador

import (
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/zonekeeper/zonekeeper/internal/source"
)

// Which Hosts an event of a Service concerns: those whose Service annotation names it (a Host with
// the target annotation too: the annotation may go, and then the Service gives its targets). The
// Services' event handler scans the cached Hosts' annotations — a string compare per Host, far
// cheaper than a plan over every name — instead of planning everything.

// serviceReaders answers, for the Services' informer, which Hosts read a Service.
type serviceReaders struct {
	// hosts is set once the Hosts' informer has synced; the Services' informer starts first, and its
	// events name everything until then.
	hosts atomic.Pointer[source.CRDSource]
}

// dependents is the dependents function of the Services' informer.
func (r *serviceReaders) dependents(obj any) []string {
	crd := r.hosts.Load()
	m, err := meta.Accessor(obj)
	if crd == nil || err != nil {
		return []string{""}
	}
	var out []string
	for _, o := range crd.Cached(0) {
		u, ok := o.(*unstructured.Unstructured)
		if !ok {
			return []string{""}
		}
		ref, annotated := u.GetAnnotations()[ServiceAnnotation]
		if !annotated {
			continue
		}
		// A malformed reference reads no Service: that Host is not concerned.
		if ns, name, err := ParseServiceRef(ref); err == nil && ns == m.GetNamespace() && name == m.GetName() {
			out = append(out, label+"/"+u.GetNamespace()+"/"+u.GetName())
		}
	}
	return out
}
