package providertest

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// BatchRecorder keeps each change batch handed to the provider it wraps (the registry's writes, with
// their ownership TXTs), then forwards it. Put it under the registry to see what a write sent.
type BatchRecorder struct {
	provider.Wrapped
	mu      sync.Mutex
	batches []*plan.Changes
}

// ApplyChanges records the batch and forwards it.
func (r *BatchRecorder) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	r.mu.Lock()
	r.batches = append(r.batches, changes)
	r.mu.Unlock()
	return r.Provider.ApplyChanges(ctx, changes)
}

// Last is the last batch sent; the test fails when none was.
func (r *BatchRecorder) Last(t testing.TB) *plan.Changes {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.batches) == 0 {
		t.Fatal("no batch was sent")
	}
	return r.batches[len(r.batches)-1]
}

// TXTChanges names the TXT changes of a batch, "create|update|delete name set-identifier
// properties", so a test can tell an ownership TXT rewritten for nothing.
func TXTChanges(c *plan.Changes) []string {
	var out []string
	add := func(action string, eps []*endpoint.Endpoint) {
		for _, e := range eps {
			if e.RecordType == endpoint.RecordTypeTXT {
				out = append(out, fmt.Sprintf("%s %s %q %v", action, e.DNSName, e.SetIdentifier, e.ProviderSpecific))
			}
		}
	}
	add("create", c.Create)
	add("update", c.UpdateNew)
	add("delete", c.Delete)
	return out
}
