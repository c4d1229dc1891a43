package kube

import (
	authorizationv1 "k8s.io/api/authorization/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// NewScheme is a scheme of the groups zonekeeper reads and writes: core/v1 (Services, Pods, Nodes,
// Namespaces, Events), networking/v1 (Ingresses), discovery/v1 (EndpointSlices), coordination/v1
// (the leader Lease) and authorization/v1 (access reviews). Events are recorded only on objects of
// these groups or on objects that carry their own apiVersion and kind (Gateway API, CRDs).
func NewScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, networkingv1.AddToScheme,
		discoveryv1.AddToScheme, coordinationv1.AddToScheme, authorizationv1.AddToScheme} {
		if err := add(s); err != nil {
			// Registering generated types into a new scheme fails only on a programming error.
			panic(err)
		}
	}
	return s
}
