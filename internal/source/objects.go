package source

import (
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
)

// ObjectLookup finds the cached Kubernetes object an endpoint's resource label ("ingress/ns/name") or
// a problem's object names, so that Events can be attached to it (with its UID, which `kubectl
// describe` matches on). Sources backed by informers implement it; manifests on disk do not.
type ObjectLookup interface {
	LookupObject(kind, namespace, name string) (runtime.Object, bool)
}

// LookupObject implements ObjectLookup for Services.
func (s *ServiceSource) LookupObject(kind, namespace, name string) (runtime.Object, bool) {
	if !strings.EqualFold(kind, "service") || !s.live {
		return nil, false
	}
	svc, err := s.services.Services(namespace).Get(name)
	if err != nil {
		return nil, false
	}
	return svc, true
}

// LookupObject implements ObjectLookup for Ingresses.
func (s *IngressSource) LookupObject(kind, namespace, name string) (runtime.Object, bool) {
	if !strings.EqualFold(kind, "ingress") || !s.live {
		return nil, false
	}
	obj, found, err := s.ingresses.get(namespace, name)
	if err != nil || !found {
		return nil, false
	}
	ing, full, err := ingressOf(obj)
	if err != nil {
		return nil, false
	}
	if full != nil {
		return full, true
	}
	// A compact Ingress is no type of the scheme an Event's reference is made with.
	return ing.reference(), true
}

// LookupObject asks every source that can look objects up.
func (m *Multi) LookupObject(kind, namespace, name string) (runtime.Object, bool) {
	for _, s := range m.sources {
		if l, ok := s.(ObjectLookup); ok {
			if obj, found := l.LookupObject(kind, namespace, name); found {
				return obj, true
			}
		}
	}
	return nil, false
}
