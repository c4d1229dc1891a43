package txt

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/provider/inmemory"
)

// Values exactly as external-dns writes them (section 6.4).
const (
	nginxValue = `"heritage=external-dns,external-dns/owner=cluster-a,external-dns/resource=service/default/nginx"`
	webValue   = `"heritage=external-dns,external-dns/owner=cluster-a,external-dns/resource=ingress/default/web"`
)

// seed writes records straight into a provider, as another tool (external-dns) would have left them.
func seed(t testing.TB, p provider.Provider, eps ...*endpoint.Endpoint) {
	t.Helper()
	if err := p.ApplyChanges(context.Background(), &plan.Changes{Create: eps}); err != nil {
		t.Fatalf("seeding: %v", err)
	}
}

func txtRecord(name, value string) *endpoint.Endpoint {
	return endpoint.New(name, endpoint.RecordTypeTXT, value)
}

func mustNew(t testing.TB, p provider.Provider, cfg Config) *Registry {
	t.Helper()
	r, err := New(p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustRecords(t testing.TB, r *Registry) []*endpoint.Endpoint {
	t.Helper()
	eps, err := r.Records(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return eps
}

func find(eps []*endpoint.Endpoint, name, recordType string) *endpoint.Endpoint {
	for _, e := range eps {
		if e.DNSName == name && e.RecordType == recordType {
			return e
		}
	}
	return nil
}

func providerRecords(t testing.TB, p provider.Provider) []*endpoint.Endpoint {
	t.Helper()
	eps, err := p.Records(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return eps
}

func asJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// assertCacheIsFresh checks the write-through invariant: what the registry serves from its cache equals
// what a brand-new registry reads from the provider.
func assertCacheIsFresh(t *testing.T, r *Registry, p provider.Provider, cfg Config) {
	t.Helper()
	cached, ok := r.CachedRecords()
	if !ok {
		t.Fatal("no cache loaded")
	}
	fresh := mustRecords(t, mustNew(t, p, cfg))
	if a, b := asJSON(t, cached), asJSON(t, fresh); a != b {
		t.Fatalf("cache differs from a fresh listing\ncache: %s\nfresh: %s", a, b)
	}
}

// recordingProvider wraps a provider and counts calls, keeping the changes it was sent.
type recordingProvider struct {
	provider.Provider
	mu      sync.Mutex
	lists   int
	applied []*plan.Changes
}

func (p *recordingProvider) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	p.mu.Lock()
	p.lists++
	p.mu.Unlock()
	return p.Provider.Records(ctx)
}

func (p *recordingProvider) ApplyChanges(ctx context.Context, c *plan.Changes) error {
	p.mu.Lock()
	p.applied = append(p.applied, c)
	p.mu.Unlock()
	return p.Provider.ApplyChanges(ctx, c)
}

func (p *recordingProvider) last() *plan.Changes {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.applied) == 0 {
		return nil
	}
	return p.applied[len(p.applied)-1]
}

func newZone(zones ...string) (*inmemory.Provider, *recordingProvider) {
	if len(zones) == 0 {
		zones = []string{"example.com"}
	}
	mem := inmemory.New(zones...)
	return mem, &recordingProvider{Provider: mem}
}
