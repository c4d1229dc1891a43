package app

import (
	"context"
	"log/slog"
	"sync"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// unreadPropertiesLogged sits in front of the served provider of `zonekeeper webhook`, whose
// OwnPropertiesOnly drops what the kind does not read: it logs the first time a client sends each such
// property, so that a client's annotation is not dropped without a word (the server has no object to
// report it on, as the controller does).
type unreadPropertiesLogged struct {
	provider.Wrapped
	kind provider.Kind
	log  *slog.Logger
	mu   sync.Mutex
	seen map[string]bool
}

func newUnreadPropertiesLogged(p provider.Provider, k provider.Kind, log *slog.Logger) *unreadPropertiesLogged {
	return &unreadPropertiesLogged{Wrapped: provider.Wrapped{Provider: p}, kind: k, log: log, seen: map[string]bool{}}
}

// AdjustEndpoints logs each property the kind does not read once per process, then forwards.
func (w *unreadPropertiesLogged) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	for _, e := range eps {
		for _, p := range e.ProviderSpecific {
			if w.kind.ReadsProperty(p.Name) {
				continue
			}
			w.mu.Lock()
			first := !w.seen[p.Name]
			w.seen[p.Name] = true
			w.mu.Unlock()
			if first {
				w.log.Warn("A client sent a provider-specific property this provider does not read: dropped (logged once)",
					"property", p.Name, "provider", w.kind.Name, "record", e.DNSName+" "+e.RecordType)
			}
		}
	}
	return w.Wrapped.AdjustEndpoints(ctx, eps)
}
