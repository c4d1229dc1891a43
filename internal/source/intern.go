package source

import (
	"sync"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"
)

// stringTable makes the cached objects of one informer factory share the strings they repeat, which
// decoding gives every object a copy of: a namespace, label and annotation keys and common values, an
// Ingress class, the load balancer address every Ingress of one controller reports (issue 15).
// Strings are immutable, so sharing one changes no object; maps are rebuilt, never shared. The table
// is bounded: when it holds stringTableSize strings it starts again empty, so strings that belong to
// one object each (a UID, a hostname) cost a lookup, never a table that only grows.
type stringTable struct {
	mu      sync.Mutex
	strings map[string]string
	ptrs    map[string]*string
}

// stringTableSize bounds a table (about 150 KB of entries at most, besides the strings it shares).
const stringTableSize = 4096

func newStringTable() *stringTable {
	return &stringTable{strings: map[string]string{}, ptrs: map[string]*string{}}
}

// transform is trimObject, then the object's repeated strings made shared: the informer transform of
// a factory's informers (each factory its own table).
func (t *stringTable) transform(obj any) (any, error) { return t.trimAndShare(trimObject, obj) }

// trimAndShare runs trim on obj, then makes the trimmed object's repeated strings shared.
func (t *stringTable) trimAndShare(trim cache.TransformFunc, obj any) (any, error) {
	obj, err := trim(obj)
	if err != nil {
		return obj, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.share(obj)
	return obj, nil
}

func (t *stringTable) share(obj any) {
	if m, err := meta.Accessor(obj); err == nil {
		m.SetNamespace(t.get(m.GetNamespace()))
		m.SetLabels(t.shareMap(m.GetLabels()))
		m.SetAnnotations(t.shareMap(m.GetAnnotations()))
	}
	switch o := obj.(type) {
	case *networkingv1.Ingress:
		o.Spec.IngressClassName = t.ptr(o.Spec.IngressClassName)
		for i := range o.Status.LoadBalancer.Ingress {
			lb := &o.Status.LoadBalancer.Ingress[i]
			lb.IP, lb.Hostname = t.get(lb.IP), t.get(lb.Hostname)
		}
	case *corev1.Service:
		for i := range o.Status.LoadBalancer.Ingress {
			lb := &o.Status.LoadBalancer.Ingress[i]
			lb.IP, lb.Hostname = t.get(lb.IP), t.get(lb.Hostname)
		}
	}
}

// get is the table's copy of s, s itself the first time.
func (t *stringTable) get(s string) string {
	if s == "" {
		return s
	}
	if v, ok := t.strings[s]; ok {
		return v
	}
	if len(t.strings) >= stringTableSize {
		clear(t.strings)
	}
	t.strings[s] = s
	return s
}

// ptr is the table's pointer to a string equal to *p (an optional field such as an Ingress's class):
// objects of one class share one.
func (t *stringTable) ptr(p *string) *string {
	if p == nil {
		return nil
	}
	if v, ok := t.ptrs[*p]; ok {
		return v
	}
	if len(t.ptrs) >= stringTableSize {
		clear(t.ptrs)
	}
	t.ptrs[*p] = p
	return p
}

// shareMap is a new map of m's entries with shared keys and values (nil for none).
func (t *stringTable) shareMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return m
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[t.get(k)] = t.get(v)
	}
	return out
}
