package controller

import "sync"

// dirtyObjects collects what the source's events named since the last reconcile took them: the
// resource labels of the objects that changed, or "everything" for an event that named none.
type dirtyObjects struct {
	mu        sync.Mutex
	resources map[string]bool
	all       bool
}

func (d *dirtyObjects) mark(resource string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if resource == "" {
		d.all = true
		return
	}
	if d.resources == nil {
		d.resources = map[string]bool{}
	}
	d.resources[resource] = true
}

// take returns and forgets what was marked.
func (d *dirtyObjects) take() (resources []string, all bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for r := range d.resources {
		resources = append(resources, r)
	}
	all = d.all
	d.resources, d.all = nil, false
	return resources, all
}
