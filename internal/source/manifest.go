package source

import (
	"context"
	"fmt"
	"sync"

	corelisters "k8s.io/client-go/listers/core/v1"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// ManifestSource publishes the endpoints of Services and Ingresses read from YAML or JSON files, with
// the same generation code and listers as the informer sources. Nodes, Pods and EndpointSlices in the
// files feed NodePort and headless services; status is read as written.
type ManifestSource struct {
	path    string
	c       *compiled
	statics []Kind // kinds that read their objects from the files too

	mu        sync.RWMutex
	services  *ServiceSource
	ingresses *IngressSource
	others    []Source           // the static kinds' sources
	problems  []endpoint.Problem // decoding problems
	handlers  eventHandlers
}

var _ Source = (*ManifestSource)(nil)

// NewManifest reads a file, or the *.yaml, *.yml and *.json files of a directory. Documents are
// separated by "---"; a "kind: List" (or ServiceList, ...) is expanded. A YAML syntax error is an error
// naming the file; an unknown kind is a Problem reported by Endpoints.
func NewManifest(path string, cfg Config) (*ManifestSource, error) {
	return NewManifestWith(path, cfg, nil)
}

// NewManifestWith is NewManifest that also publishes the objects of the static kinds given (kinds
// with a Static), each through its own generation code.
func NewManifestWith(path string, cfg Config, statics []Kind) (*ManifestSource, error) {
	c, err := compile(cfg)
	if err != nil {
		return nil, err
	}
	m := &ManifestSource{path: path, c: c, statics: statics}
	if err := m.load(); err != nil {
		return nil, err
	}
	return m, nil
}

// Reload reads the files again and, when they decode, replaces the objects and calls the event
// handlers. On error the previous objects stay.
func (m *ManifestSource) Reload() error {
	if err := m.load(); err != nil {
		return err
	}
	m.handlers.notify("")
	return nil
}

func (m *ManifestSource) load() error {
	files, err := manifestFiles(m.path)
	if err != nil {
		return fmt.Errorf("manifest: %w", err)
	}
	objs := newManifestObjects(m.c.Namespace)
	for _, f := range files {
		if err := objs.readFile(f); err != nil {
			return fmt.Errorf("manifest: %w", err)
		}
	}
	svc := &ServiceSource{c: m.c, services: corelisters.NewServiceLister(objs.services), state: clusterState{
		nodes:  corelisters.NewNodeLister(objs.nodes),
		pods:   corelisters.NewPodLister(objs.pods),
		slices: objs.slices,
	}}
	ing := &IngressSource{c: m.c, ingresses: storeIngresses{objs.ingresses}}
	others, err := objs.staticSources(m.c.Config, m.statics)
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.services, m.ingresses, m.others, m.problems = svc, ing, others, objs.problems.items
	m.mu.Unlock()
	return nil
}

// Endpoints returns the endpoints of the services, then of the ingresses, with the decoding problems
// first among the problems.
func (m *ManifestSource) Endpoints(ctx context.Context) (Result, error) {
	m.mu.RLock()
	svc, ing, others, decodeProblems := m.services, m.ingresses, m.others, m.problems
	m.mu.RUnlock()
	out := Result{Problems: append([]endpoint.Problem(nil), decodeProblems...)}
	for _, s := range append([]Source{svc, ing}, others...) {
		r, err := s.Endpoints(ctx)
		if err != nil {
			return Result{}, err
		}
		out.Endpoints = append(out.Endpoints, r.Endpoints...)
		out.Problems = append(out.Problems, r.Problems...)
	}
	return out, nil
}

// AddEventHandler registers fn to be called after each successful Reload.
func (m *ManifestSource) AddEventHandler(fn func()) { m.handlers.add(fn) }
