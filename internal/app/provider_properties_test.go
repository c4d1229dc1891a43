package app

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/provider/inmemory"
	"github.com/zonekeeper/zonekeeper/internal/provider/webhook"
)

// propertyNames is the provider behind a webhook server: it notes every property name it is asked to
// adjust.
type propertyNames struct {
	provider.Wrapped
	mu    sync.Mutex
	names []string
}

func (p *propertyNames) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	p.mu.Lock()
	for _, e := range eps {
		for _, ps := range e.ProviderSpecific {
			if !slices.Contains(p.names, ps.Name) {
				p.names = append(p.names, ps.Name)
			}
		}
	}
	p.mu.Unlock()
	return p.Wrapped.AdjustEndpoints(ctx, eps)
}

const propertiesService = `apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: default
  annotations:
    external-dns.alpha.kubernetes.io/hostname: web.example.com
    external-dns.alpha.kubernetes.io/cloudflare-proxied: "true"
    external-dns.alpha.kubernetes.io/webhook-zone-tag: blue
spec:
  type: LoadBalancer
  ports: [{name: http, port: 80}]
status: {loadBalancer: {ingress: [{ip: 192.0.2.30}]}}
`

// planOverManifest writes manifest into a directory and starts a webhook server over a propertyNames
// spy; run runs `zonekeeper plan` over the directory with args and returns its output and error
// output, failing the test unless it exits with changes to make.
func planOverManifest(t *testing.T, manifest string) (spy *propertyNames, url string, run func(t *testing.T, args ...string) (string, string)) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "svc.yaml"), []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	spy = &propertyNames{Wrapped: provider.Wrapped{Provider: inmemory.New("example.com")}}
	srv := httptest.NewServer(webhook.Handler(spy, plan.DomainFilter{}, nil))
	t.Cleanup(srv.Close)
	return spy, srv.URL, func(t *testing.T, args ...string) (string, string) {
		t.Helper()
		var out, errOut bytes.Buffer
		args = append([]string{"plan", "--source=manifest", "--manifest=" + dir, "--txt-owner-id=plan"}, args...)
		if code := Main(context.Background(), args, &out, &errOut, func(string) string { return "" }); code != ExitHasChanges {
			t.Fatalf("zonekeeper plan exited %d, want %d (changes):\n%s\n%s", code, ExitHasChanges, out.String(), errOut.String())
		}
		return out.String(), errOut.String()
	}
}

// The app tells the sources which properties its providers read: with --provider=inmemory alone, the
// cloudflare- and webhook- annotations are reported, naming the annotation; with a second view
// published through a webhook provider, the webhook- one is not (that view's provider is sent it) and
// the cloudflare- one still is (no view's provider reads it, and none is sent it).
func TestPlanReportsPropertiesNoViewsProviderReads(t *testing.T) {
	spy, url, run := planOverManifest(t, propertiesService)
	const (
		cloudflareProblem = "field=metadata.annotations[external-dns.alpha.kubernetes.io/cloudflare-proxied] value=true reason=\"read only by --provider=cloudflare; "
		webhookProblem    = "field=metadata.annotations[external-dns.alpha.kubernetes.io/webhook-zone-tag]"
	)
	for _, c := range []struct {
		name        string
		flags       []string
		problems    []string
		notProblems []string
	}{
		{"inmemory", nil, []string{cloudflareProblem + "--provider=inmemory does not read it: not applied\"", webhookProblem}, nil},
		{"inmemory and a webhook view", []string{"--view=inside", "--view=outside", "--view-provider=outside=webhook", "--webhook-provider-url=" + url},
			[]string{cloudflareProblem + "none of the providers configured (inmemory, webhook) reads it: not applied\""}, []string{webhookProblem}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, errOut := run(t, append([]string{"--provider=inmemory", "--inmemory-zone=example.com"}, c.flags...)...)
			for _, p := range c.problems {
				if !strings.Contains(errOut, p) {
					t.Errorf("no problem %s:\n%s", p, errOut)
				}
			}
			for _, p := range c.notProblems {
				if strings.Contains(errOut, p) {
					t.Errorf("problem %s reported, yet a view's provider reads it:\n%s", p, errOut)
				}
			}
		})
	}
	spy.mu.Lock()
	defer spy.mu.Unlock()
	if !slices.Equal(spy.names, []string{"webhook/zone-tag"}) {
		t.Errorf("the webhook view's provider was sent properties %q, want only webhook/zone-tag", spy.names)
	}
}
