package source

import (
	"context"
	"fmt"
	"slices"
)

// Multi combines several sources into one.
type Multi struct {
	sources []Source
}

var _ ObjectSource = (*Multi)(nil)

// NewMulti returns a source publishing the endpoints of all the given sources.
func NewMulti(sources ...Source) *Multi {
	return &Multi{sources: sources}
}

// Endpoints concatenates the results of every source. If one source fails the whole call fails with no
// endpoints: a partial desired state would make the plan delete the failed source's records.
func (m *Multi) Endpoints(ctx context.Context) (Result, error) {
	var out Result
	for i, s := range m.sources {
		r, err := s.Endpoints(ctx)
		if err != nil {
			return Result{}, fmt.Errorf("source %d (%T): %w", i, s, err)
		}
		out.Endpoints = append(out.Endpoints, r.Endpoints...)
		out.Problems = append(out.Problems, r.Problems...)
		out.Unreadable = append(out.Unreadable, r.Unreadable...)
	}
	return out, nil
}

// ReadsUnwatched implements UnwatchedReader: some source does.
func (m *Multi) ReadsUnwatched() bool {
	for _, s := range m.sources {
		if ReadsUnwatched(s) {
			return true
		}
	}
	return false
}

// AddEventHandler registers fn with every source.
func (m *Multi) AddEventHandler(fn func()) {
	for _, s := range m.sources {
		s.AddEventHandler(fn)
	}
}

// ObjectKinds implements ObjectSource: the kinds some source answers for.
func (m *Multi) ObjectKinds() []string {
	var kinds []string
	for _, s := range m.sources {
		for _, k := range objectKindsOf(s) {
			if !slices.Contains(kinds, k) {
				kinds = append(kinds, k)
			}
		}
	}
	return kinds
}

// AddObjectHandler implements ObjectSource; the events of a source that cannot name its objects
// name none.
func (m *Multi) AddObjectHandler(fn func(resource string)) {
	for _, s := range m.sources {
		objectHandlersOf(s, fn)
	}
}

// ObjectEndpoints implements ObjectSource: each object is asked of the sources that answer for its
// kind. An object of a kind none answers for is an error: the caller then plans everything.
func (m *Multi) ObjectEndpoints(ctx context.Context, resources []string) (Result, error) {
	var out Result
	asked := make(map[string]bool, len(resources))
	for i, s := range m.sources {
		o, ok := s.(ObjectSource)
		if !ok {
			continue
		}
		kinds := o.ObjectKinds()
		var mine []string
		for _, r := range resources {
			if slices.Contains(kinds, ResourceKind(r)) {
				mine = append(mine, r)
				asked[r] = true
			}
		}
		if len(mine) == 0 {
			continue
		}
		r, err := o.ObjectEndpoints(ctx, mine)
		if err != nil {
			return Result{}, fmt.Errorf("source %d (%T): %w", i, s, err)
		}
		out.Endpoints = append(out.Endpoints, r.Endpoints...)
		out.Problems = append(out.Problems, r.Problems...)
		out.Unreadable = append(out.Unreadable, r.Unreadable...)
		if len(r.Objects) == 0 {
			r.Objects = mine
		}
		out.Objects = append(out.Objects, r.Objects...)
	}
	for _, r := range resources {
		if !asked[r] {
			return Result{}, fmt.Errorf("no source makes the endpoints of %s alone", r)
		}
	}
	return out, nil
}
