package ambassador

import (
	"strings"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/zonekeeper/zonekeeper/internal/source"
)

// Which Hosts an event of a Service concerns: those whose Service annotation names it (a Host with
// the target annotation too: the annotation may go, and then the Service gives its targets). The
// Services' event handler scans the cached Hosts' annotations — a map read and a substring test per
// Host (BenchmarkServiceDependents), far cheaper than a plan over every name — instead of planning
// everything.

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
		// Read in place (GetAnnotations copies the map); a reference not containing the name cannot
		// name the Service, and a malformed one reads no Service: that Host is not concerned.
		ref, annotated, _ := unstructured.NestedString(u.Object, "metadata", "annotations", ServiceAnnotation)
		if !annotated || !strings.Contains(ref, m.GetName()) {
			continue
		}
		if ns, name, err := ParseServiceRef(ref); err == nil && ns == m.GetNamespace() && name == m.GetName() {
			out = append(out, label+"/"+u.GetNamespace()+"/"+u.GetName())
		}
	}
	return out
}
