// Package ambassador is the ambassador-host source: Ambassador and Emissary-ingress Hosts
// (getambassador.io/v2), read through the dynamic client into a small view.
//
// The semantics are external-dns's: a Host is published only when it names its load balancer Service
// in the external-dns.ambassador-service annotation; its one name is spec.hostname; its targets are the
// target annotation, else that Service's external IPs, else its load balancer addresses.
package ambassador

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/zonekeeper/zonekeeper/internal/kube"
	"github.com/zonekeeper/zonekeeper/internal/source"
)

// HostResource is what the source reads. v2 is the version every Ambassador and Emissary-ingress
// release serves (Emissary 3 stores Hosts in it and converts v3alpha1 to it), so one view serves
// clusters of either: external-dns v0.21 reads v2, v0.23 v3alpha1, and spec.hostname is the same
// field in both.
var HostResource = schema.GroupVersionResource{Group: "getambassador.io", Version: "v2", Resource: "hosts"}

const (
	hostKind = "Host"
	// label is the kind of the resource label, "host/<ns>/<name>", as external-dns writes it.
	label = "host"
	// ServiceAnnotation names the Host's load balancer Service: "namespace/name", "name.namespace" or
	// "name" (in default). A Host without it is not published. It has no prefix variants.
	ServiceAnnotation = "external-dns.ambassador-service"
)

// Source publishes Hosts, through source.CRDSource, with the Services they name.
type Source struct {
	*source.CRDSource
	services *serviceFinder
}

var (
	_ source.Source       = (*Source)(nil)
	_ source.ObjectLookup = (*Source)(nil)
)

// Endpoints returns the records of every published Host; Services outside --namespace are read once
// per pass.
func (s *Source) Endpoints(ctx context.Context) (source.Result, error) {
	s.services.startPass()
	return s.CRDSource.Endpoints(ctx)
}

// ReadsUnwatched implements source.UnwatchedReader: a pass that read a Service outside --namespace
// (a GET, no informer) cannot tell when that Service changes, so every resync must list again.
func (s *Source) ReadsUnwatched() bool { return s.services.readRemote() }

// AddEventHandler registers fn for every change of a Host or a Service.
func (s *Source) AddEventHandler(fn func()) {
	s.CRDSource.AddEventHandler(fn)
	s.services.handlers.Add(fn)
}

// AddObjectHandler registers fn for every change of a Host (naming it) or a Service in --namespace
// (naming the Hosts whose Service annotation names it: events.go).
func (s *Source) AddObjectHandler(fn func(resource string)) {
	s.CRDSource.AddObjectHandler(fn)
	s.services.handlers.AddObject(fn)
}

// newSource starts the Service informer in --namespace, then the Host informer, and waits for both.
func newSource(ctx context.Context, env source.Env) (source.Source, error) {
	if env.Kube == nil {
		return nil, fmt.Errorf("ambassador-host needs the Kubernetes API")
	}
	f := &serviceFinder{namespace: env.Config.Namespace, kube: env.Kube}
	kf := kube.NewFactory(env.Kube, env.Config.Namespace, source.TrimObject)
	inf := kf.Services()
	f.index = inf.GetIndexer()
	readers := &serviceReaders{}
	f.handlers.DependentsOf("services", readers.dependents)
	if err := source.StartAndSync(ctx, map[string]cache.SharedIndexInformer{"services": inf}, &f.handlers, kf.Start); err != nil {
		return nil, err
	}
	crd, err := source.NewCRDSource(ctx, env, crdKinds(f))
	if err != nil {
		return nil, err
	}
	readers.hosts.Store(crd)
	return &Source{CRDSource: crd, services: f}, nil
}

func crdKinds(f *serviceFinder) []source.CRDKind {
	return []source.CRDKind{{GVR: HostResource, Kind: hostKind, Label: label, NoTemplate: true,
		Read: func(o *source.Object, u *unstructured.Unstructured) ([]string, source.Targets, any, bool) {
			return read(o, u, f)
		}}}
}

// hostView is what is read of a Host.
type hostView struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              *struct {
		Hostname string `json:"hostname,omitempty"`
	} `json:"spec,omitempty"`
}

// read returns a Host's name and targets; a Host without the Service annotation or without a
// hostname has none.
func read(o *source.Object, u *unstructured.Unstructured, f *serviceFinder) ([]string, source.Targets, any, bool) {
	ref, annotated := u.GetAnnotations()[ServiceAnnotation]
	if !annotated {
		return nil, source.Targets{}, nil, false
	}
	h := &hostView{}
	if !o.DecodeView(u, h) {
		return nil, source.Targets{}, nil, false
	}
	targets, present := o.TargetAnnotation()
	if !present {
		ns, name, err := ParseServiceRef(ref)
		if err != nil {
			o.Problem(ServiceAnnotation, ref, err.Error())
			return nil, source.Targets{}, nil, false
		}
		svc, err := f.get(ns, name)
		if err != nil {
			o.Problem(ServiceAnnotation, ref, err.Error())
			return nil, source.Targets{}, nil, false
		}
		targets = serviceTargets(o, svc)
	}
	var names []string
	if h.Spec != nil && h.Spec.Hostname != "" {
		if n := o.NormalizeHost("spec.hostname", h.Spec.Hostname); n != "" {
			names = append(names, n)
		}
	}
	return names, targets, h, true
}

// ParseServiceRef reads the Service annotation: "namespace/name", else "name.namespace" (split at the
// first dot, so "svc.foo.bar" is svc in foo.bar), else a name in default, as Ambassador reads it.
func ParseServiceRef(ref string) (namespace, name string, err error) {
	parts := strings.Split(ref, "/")
	switch {
	case len(parts) == 2:
		namespace, name = parts[0], parts[1]
	case len(parts) > 2:
		return "", "", fmt.Errorf("not namespace/name, name.namespace or name")
	case strings.Contains(ref, "."):
		name, namespace, _ = strings.Cut(ref, ".")
	default:
		namespace, name = metav1.NamespaceDefault, ref
	}
	if namespace == "" || name == "" {
		return "", "", fmt.Errorf("not namespace/name, name.namespace or name")
	}
	return namespace, name, nil
}

// serviceTargets are a Service's external IPs, else its load balancer's addresses, as external-dns
// takes them for Hosts.
func serviceTargets(o *source.Object, svc *corev1.Service) source.Targets {
	var t source.Targets
	field := "Service " + svc.Namespace + "/" + svc.Name
	for i, ip := range svc.Spec.ExternalIPs {
		t.Add(o, fmt.Sprintf("%s spec.externalIPs[%d]", field, i), ip)
	}
	if len(svc.Spec.ExternalIPs) > 0 {
		return t
	}
	return source.LoadBalancerTargets(o, svc.Status.LoadBalancer, field+" status.loadBalancer")
}

// serviceFinder finds the Service a Host names: in the informer's cache when it is in --namespace (or
// no --namespace is set), else with a GET, as external-dns reads every such Service.
type serviceFinder struct {
	namespace string
	index     cache.Indexer
	kube      *kube.Client
	handlers  source.Handlers

	mu sync.Mutex
	// remote holds the answers of this pass's GETs, by namespace/name.
	remote map[string]remoteService
}

type remoteService struct {
	svc *corev1.Service
	err error
}

// lookupTimeout bounds one GET of a Service outside --namespace.
const lookupTimeout = 10 * time.Second

// readRemote reports whether the passes since the last startPass read a Service with a GET.
func (f *serviceFinder) readRemote() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.remote) > 0
}

func (f *serviceFinder) startPass() {
	f.mu.Lock()
	f.remote = nil
	f.mu.Unlock()
}

func (f *serviceFinder) get(namespace, name string) (*corev1.Service, error) {
	if f.kube == nil || f.namespace == "" || namespace == f.namespace {
		obj, ok, err := f.index.GetByKey(namespace + "/" + name)
		if err != nil {
			return nil, err
		}
		if svc, isSvc := obj.(*corev1.Service); ok && isSvc {
			return svc, nil
		}
		return nil, fmt.Errorf("Service %s/%s not found", namespace, name)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	key := namespace + "/" + name
	if r, ok := f.remote[key]; ok {
		return r.svc, r.err
	}
	ctx, cancel := context.WithTimeout(context.Background(), lookupTimeout)
	defer cancel()
	svc := &corev1.Service{}
	err := f.kube.Core.Get().Namespace(namespace).Resource("services").Name(name).Do(ctx).Into(svc)
	switch {
	case apierrors.IsNotFound(err):
		err = fmt.Errorf("Service %s/%s not found", namespace, name)
	case err != nil:
		err = fmt.Errorf("Service %s/%s outside --namespace: %w", namespace, name, err)
	}
	if f.remote == nil {
		f.remote = map[string]remoteService{}
	}
	f.remote[key] = remoteService{svc, err}
	return svc, err
}
