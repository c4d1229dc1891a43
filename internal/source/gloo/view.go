package gloo

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// proxyView is what is read of a Proxy (gloo.solo.io/v1): the virtual hosts of its HTTP listeners and
// of its aggregate listeners' filter chains, and the Gateways that produced each listener.
type proxyView struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Listeners []listenerView `json:"listeners,omitempty"`
	} `json:"spec"`
}

type listenerView struct {
	HTTPListener struct {
		VirtualHosts []virtualHostView `json:"virtualHosts,omitempty"`
	} `json:"httpListener"`
	// AggregateListener replaces HTTPListener when a Gateway isolates virtual hosts by TLS config:
	// filter chains name shared virtual hosts.
	AggregateListener struct {
		HTTPFilterChains []struct {
			VirtualHostRefs []string `json:"virtualHostRefs,omitempty"`
		} `json:"httpFilterChains,omitempty"`
		HTTPResources struct {
			VirtualHosts map[string]virtualHostView `json:"virtualHosts,omitempty"`
		} `json:"httpResources"`
	} `json:"aggregateListener"`
	MetadataStatic metadataStatic `json:"metadataStatic"`
}

type virtualHostView struct {
	Domains []string `json:"domains,omitempty"`
	// Metadata (older Gloo) and MetadataStatic (newer) name the VirtualServices the host came from.
	Metadata struct {
		Sources []struct {
			Kind      string `json:"kind,omitempty"`
			Name      string `json:"name,omitempty"`
			Namespace string `json:"namespace,omitempty"`
		} `json:"sources,omitempty"`
	} `json:"metadata"`
	MetadataStatic metadataStatic `json:"metadataStatic"`
}

type metadataStatic struct {
	Sources []struct {
		ResourceKind string `json:"resourceKind,omitempty"`
		ResourceRef  struct {
			Name      string `json:"name,omitempty"`
			Namespace string `json:"namespace,omitempty"`
		} `json:"resourceRef"`
	} `json:"sources,omitempty"`
}

// The resource kinds Gloo writes into metadata sources.
const (
	sourceVirtualService = "*v1.VirtualService"
	sourceGateway        = "*v1.Gateway"
)

// virtualHosts returns the listener's virtual hosts: the HTTP listener's, then those the aggregate
// listener's filter chains name, in their order.
func (l listenerView) virtualHosts() []virtualHostView {
	out := append([]virtualHostView{}, l.HTTPListener.VirtualHosts...)
	for _, chain := range l.AggregateListener.HTTPFilterChains {
		for _, ref := range chain.VirtualHostRefs {
			if vh, ok := l.AggregateListener.HTTPResources.VirtualHosts[ref]; ok {
				out = append(out, vh)
			}
		}
	}
	return out
}
