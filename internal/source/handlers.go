package source

import (
	"sync"

	"k8s.io/client-go/tools/cache"
)

// eventHandlers fans informer events out to the functions registered with AddEventHandler.
type eventHandlers struct {
	mu  sync.RWMutex
	fns []func()
}

func (h *eventHandlers) add(fn func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.fns = append(h.fns, fn)
}

func (h *eventHandlers) notify() {
	h.mu.RLock()
	fns := h.fns
	h.mu.RUnlock()
	for _, fn := range fns {
		fn()
	}
}

// watch calls notify on every add, update and delete the informer sees.
func (h *eventHandlers) watch(inf cache.SharedIndexInformer) error {
	_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { h.notify() },
		UpdateFunc: func(any, any) { h.notify() },
		DeleteFunc: func(any) { h.notify() },
	})
	return err
}
