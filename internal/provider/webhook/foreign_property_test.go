package webhook

import (
	"context"
	"flag"
	"log/slog"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/controller"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/provider/inmemory"
	"github.com/zonekeeper/zonekeeper/internal/provider/providertest"
	"github.com/zonekeeper/zonekeeper/internal/registry/txt"
)

// propertySpy is the provider behind the webhook server: it notes every property name the server
// was sent, to adjust or to apply.
type propertySpy struct {
	provider.Wrapped
	mu    sync.Mutex
	names []string
}

func (s *propertySpy) note(eps []*endpoint.Endpoint) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range eps {
		for _, p := range e.ProviderSpecific {
			if !slices.Contains(s.names, p.Name) {
				s.names = append(s.names, p.Name)
			}
		}
	}
}

func (s *propertySpy) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	s.note(eps)
	return s.Wrapped.AdjustEndpoints(ctx, eps)
}

func (s *propertySpy) ApplyChanges(ctx context.Context, c *plan.Changes) error {
	s.note(c.Create)
	s.note(c.UpdateNew)
	return s.Provider.ApplyChanges(ctx, c)
}

// As external-dns with --provider=webhook, only webhook/ properties (webhook- annotations) and the
// names without a namespace (alias) reach the webhook server: an aws-weight or cloudflare-proxied
// annotation a shared chart sets is not sent. The client is built as the app builds a view's provider
// (the kind's flags and New, then provider.OwnPropertiesOnly with the kind's Properties).
func TestOnlyWebhookPropertiesReachTheServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	spy := &propertySpy{Wrapped: provider.Wrapped{Provider: inmemory.New("example.com")}}
	srv := httptest.NewServer(Handler(spy, plan.DomainFilter{}, nil))
	t.Cleanup(srv.Close)

	k := (&WebhookFlags{}).Kind()
	k.Defaults()
	fs := flag.NewFlagSet("webhook", flag.ContinueOnError)
	k.Flags(fs)
	if err := fs.Parse([]string{"--webhook-provider-url=" + srv.URL}); err != nil {
		t.Fatal(err)
	}
	newProvider, err := k.New(ctx, provider.Env{Log: slog.New(slog.DiscardHandler), Getenv: func(string) string { return "" }, Views: []provider.View{{}}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := newProvider(provider.View{})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := txt.New(provider.OwnPropertiesOnly(p, k.Properties), txt.Config{OwnerID: providertest.OwnerID, CacheInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	e := endpoint.NewWithTTL("web.example.com", endpoint.RecordTypeA, 300, "192.0.2.1").
		WithProviderSpecific("aws/weight", "10").WithProviderSpecific("cloudflare/proxied", "true").
		WithProviderSpecific("webhook/zone-tag", "blue").WithProviderSpecific("alias", "false")
	ctrl := controller.New(providertest.FixedSource{e}, reg, controller.Settings{OwnerID: providertest.OwnerID, Policy: plan.PolicySync,
		ManagedRecordTypes: []string{endpoint.RecordTypeA}}, slog.New(slog.DiscardHandler))
	out, err := ctrl.RunOnce(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Changes.Create) == 0 {
		t.Fatal("nothing was created")
	}
	slices.Sort(spy.names)
	if got := spy.names; !slices.Equal(got, []string{"alias", "webhook/zone-tag"}) {
		t.Errorf("the server was sent properties %q, want only alias and webhook/zone-tag", got)
	}
}
