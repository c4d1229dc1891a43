package kube

import (
	"sync"

	"k8s.io/client-go/tools/cache"
)

// sharedInformers is the bookkeeping Factory and DynamicFactory share: one informer per key, made the
// first time it is asked for, and Start running those not yet running.
type sharedInformers[K comparable] struct {
	mu        sync.Mutex
	informers map[K]cache.SharedIndexInformer
	started   map[K]bool
}

func newSharedInformers[K comparable]() sharedInformers[K] {
	return sharedInformers[K]{informers: map[K]cache.SharedIndexInformer{}, started: map[K]bool{}}
}

// get returns the informer under key, made by newInformer the first time.
func (s *sharedInformers[K]) get(key K, newInformer func() cache.SharedIndexInformer) cache.SharedIndexInformer {
	s.mu.Lock()
	defer s.mu.Unlock()
	inf, ok := s.informers[key]
	if !ok {
		inf = newInformer()
		s.informers[key] = inf
	}
	return inf
}

// Start runs every informer not yet running until stop is closed.
func (s *sharedInformers[K]) Start(stop <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for key, inf := range s.informers {
		if !s.started[key] {
			s.started[key] = true
			go inf.Run(stop)
		}
	}
}
