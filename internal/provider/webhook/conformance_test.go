package webhook_test

import (
	"net/http/httptest"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider/conformance"
	"github.com/zonekeeper/zonekeeper/internal/provider/inmemory"
	"github.com/zonekeeper/zonekeeper/internal/provider/webhook"
)

// The client through zonekeeper's own server in front of the in-memory provider: every change, and
// every refusal, crosses the protocol both ways.
func TestConformanceThroughZonekeeperServer(t *testing.T) {
	conformance.Run(t, func(t *testing.T) conformance.Subject {
		srv := httptest.NewServer(webhook.Handler(inmemory.New(conformance.Zone), plan.DomainFilter{}, nil))
		t.Cleanup(srv.Close)
		p, err := webhook.New(webhook.Config{URL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		return conformance.Subject{Provider: p}
	})
}
