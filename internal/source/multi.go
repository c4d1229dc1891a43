package source

import (
	"context"
	"fmt"
)

// Multi combines several sources into one.
type Multi struct {
	sources []Source
}

var _ Source = (*Multi)(nil)

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

// AddEventHandler registers fn with every source.
func (m *Multi) AddEventHandler(fn func()) {
	for _, s := range m.sources {
		s.AddEventHandler(fn)
	}
}
