// Package f5 is the f5-virtualserver and f5-transportserver sources: F5 Container Ingress Services
// VirtualServers and TransportServers (cis.f5.com/v1), read through the dynamic client into small views.
//
// The semantics are external-dns's (v0.21.0 and v0.23.0 agree on the records): an object is published
// only once status.vsAddress holds an address (not empty, not "None"); its targets are the target
// annotation, else spec.virtualServerAddress, else status.vsAddress; its names spec.host and, on a
// VirtualServer, spec.hostAliases. The records carry the ttl annotation and nothing else.
package f5

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/zonekeeper/zonekeeper/internal/source"
)

// The resources the sources read.
var (
	VirtualServerResource   = schema.GroupVersionResource{Group: "cis.f5.com", Version: "v1", Resource: "virtualservers"}
	TransportServerResource = schema.GroupVersionResource{Group: "cis.f5.com", Version: "v1", Resource: "transportservers"}
)

// VirtualServerKind is --source=f5-virtualserver. It reads VirtualServers in --namespace with get, list
// and watch, and waits for the CRD when it is missing.
func VirtualServerKind() source.Kind {
	return kind("f5-virtualserver", "VirtualServer", VirtualServerResource, readVirtualServer)
}

// TransportServerKind is --source=f5-transportserver, as VirtualServerKind for TransportServers.
func TransportServerKind() source.Kind {
	return kind("f5-transportserver", "TransportServer", TransportServerResource, readTransportServer)
}

// kind builds a source kind whose resource label kind is its name ("f5-virtualserver/<ns>/<name>",
// external-dns's spelling). The templates apply as in external-dns v0.23 (v0.21 ignores all three on
// these kinds): when the object made no record (it has no address yet, say) or with
// --combine-fqdn-annotation, the --fqdn-target-template pairs, then the --fqdn-template names pointing
// at the --target-template targets only; --fqdn-template alone therefore publishes nothing.
func kind(name, apiKind string, gvr schema.GroupVersionResource, read func(*source.Object, *unstructured.Unstructured) ([]string, source.Targets, any, bool)) source.Kind {
	kinds := func(source.Config) []source.CRDKind {
		return []source.CRDKind{{GVR: gvr, Kind: apiKind, Label: name, Read: read, NoTemplate: true, TTLOnly: true, TargetTemplates: true, Unnamed: unnamed}}
	}
	return source.Kind{
		Name:    name,
		Cluster: true,
		Reads: func(source.Config) []source.Resource {
			return []source.Resource{{Group: gvr.Group, Version: gvr.Version, Resource: gvr.Resource, CRD: true}}
		},
		New: func(ctx context.Context, env source.Env) (source.Source, error) {
			return source.NewCRDSource(ctx, env, kinds(env.Config))
		},
		Static: source.CRDStatic([]schema.GroupKind{{Group: gvr.Group, Kind: apiKind}}, kinds),
	}
}

// status is the status both kinds share, with the names of F5's CustomResourceStatus.
type status struct {
	VSAddress string `json:"vsAddress,omitempty"`
	Status    string `json:"status,omitempty"`
}

// virtualServerView is what is read of a VirtualServer, with the names of F5's Go type.
type virtualServerView struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Host                 string   `json:"host,omitempty"`
		HostAliases          []string `json:"hostAliases,omitempty"`
		VirtualServerAddress string   `json:"virtualServerAddress,omitempty"`
	} `json:"spec"`
	Status status `json:"status,omitempty"`
}

// transportServerView is what is read of a TransportServer, with the names of F5's Go type.
type transportServerView struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Host                 string `json:"host,omitempty"`
		VirtualServerAddress string `json:"virtualServerAddress,omitempty"`
	} `json:"spec"`
	Status status `json:"status,omitempty"`
}

func readVirtualServer(o *source.Object, u *unstructured.Unstructured) ([]string, source.Targets, any, bool) {
	v := &virtualServerView{}
	if !o.DecodeView(u, v) {
		return nil, source.Targets{}, nil, false
	}
	names := hostNames(o, v.Spec.Host)
	for i, alias := range v.Spec.HostAliases {
		if alias != "" {
			if n := o.NormalizeHost(fmt.Sprintf("spec.hostAliases[%d]", i), alias); n != "" {
				names = append(names, n)
			}
		}
	}
	return names, targets(o, v.Spec.VirtualServerAddress, v.Status), v, true
}

func readTransportServer(o *source.Object, u *unstructured.Unstructured) ([]string, source.Targets, any, bool) {
	v := &transportServerView{}
	if !o.DecodeView(u, v) {
		return nil, source.Targets{}, nil, false
	}
	return hostNames(o, v.Spec.Host), targets(o, v.Spec.VirtualServerAddress, v.Status), v, true
}

// hostNames returns spec.host, when set and a DNS name.
func hostNames(o *source.Object, host string) []string {
	if host == "" {
		return nil // external-dns makes a record with an empty name, which no zone takes
	}
	if n := o.NormalizeHost("spec.host", host); n != "" {
		return []string{n}
	}
	return nil
}

// targets returns none until F5 has given the object an address (status.vsAddress set and not
// "None"), then the target annotation, else spec.virtualServerAddress, else status.vsAddress.
func targets(o *source.Object, specAddress string, st status) source.Targets {
	if !allocated(st.VSAddress) {
		return source.Targets{}
	}
	if t, present := o.TargetAnnotation(); present {
		return t
	}
	var t source.Targets
	if specAddress != "" {
		t.Add(o, "spec.virtualServerAddress", specAddress)
	} else {
		t.Add(o, "status.vsAddress", st.VSAddress)
	}
	return t
}

// unnamed reports whether external-dns v0.23 makes a record with an empty name for a server: one F5 has
// given an address but that names no host (no spec.host, no alias). Such a server gets no template
// records there unless --combine-fqdn-annotation.
func unnamed(view any) bool {
	switch v := view.(type) {
	case *virtualServerView:
		return allocated(v.Status.VSAddress) && v.Spec.Host == ""
	case *transportServerView:
		return allocated(v.Status.VSAddress) && v.Spec.Host == ""
	}
	return false
}

// allocated reports whether a status.vsAddress says that F5 has set the virtual server up: not empty
// and not "None" (the CRD's default), in any case.
func allocated(vsAddress string) bool {
	return vsAddress != "" && !strings.EqualFold(vsAddress, "none")
}
