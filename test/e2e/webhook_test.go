package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/miekg/dns"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/app"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/provider/conformance"
	"github.com/zonekeeper/zonekeeper/internal/provider/inmemory"
	"github.com/zonekeeper/zonekeeper/internal/provider/pdns"
	"github.com/zonekeeper/zonekeeper/internal/provider/webhook"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// Every test that starts external-dns's webhook server is in this file: the server's address is
// fixed (testbed.ExternalDNSWebhookAddress), so these tests must not run at the same time.

// externalDNSPowerDNSWebhook starts the real external-dns serving its pdns provider over the webhook
// protocol, in front of pd.
func externalDNSPowerDNSWebhook(t *testing.T, peer testbed.ExternalDNSPeer, pd *testbed.PowerDNS) *testbed.ExternalDNSWebhook {
	return testbed.StartExternalDNSWebhookPeer(t, peer, "--provider=pdns", "--pdns-server="+pd.APIURL,
		"--pdns-api-key="+pd.APIKey, "--domain-filter=example.com")
}

// The provider conformance suite through both of zonekeeper's ends of the protocol: the webhook client
// talking to zonekeeper's webhook server in front of a real PowerDNS, answers checked over DNS.
func TestWebhookConformanceThroughZonekeeperServerToPowerDNS(t *testing.T) {
	conformance.Run(t, func(t *testing.T) conformance.Subject {
		pd := testbed.StartPowerDNS(t, conformance.Zone, "other.org")
		backend, err := pdns.New(pdns.Config{Server: pd.APIURL, APIKey: pd.APIKey, DomainFilter: []string{conformance.Zone}})
		if err != nil {
			t.Fatal(err)
		}
		filter, err := plan.NewDomainFilter([]string{conformance.Zone}, nil, "", "")
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(webhook.Handler(backend, filter, nil))
		t.Cleanup(srv.Close)
		p, err := webhook.New(webhook.Config{URL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		return conformance.Subject{
			Provider:  p,
			TXTOnWire: conformance.ZoneFileTXTOnWire,
			Lookup: func(t *testing.T, name string, qtype uint16) []dns.RR {
				m := new(dns.Msg)
				m.SetQuestion(dns.Fqdn(name), qtype)
				in, err := dns.Exchange(m, pd.Addr)
				if err != nil {
					t.Fatalf("asking PowerDNS for %s: %v", name, err)
				}
				return in.Answer
			},
			SeedOutside: func(t *testing.T) func(t *testing.T) {
				seedPowerDNSZone(t, pd, "other.org.", "www.other.org.", "A", "192.0.2.7")
				return func(t *testing.T) {
					if got, err := powerDNSAnswers(pd, "www.other.org", dns.TypeA); err != nil || strings.Join(got, ",") != "192.0.2.7" {
						t.Fatalf("the record outside the zone changed: %v %v", got, err)
					}
				}
			},
		}
	})
}

// The reference server: external-dns v0.21's own --webhook-server with its pdns provider, in front of
// a real PowerDNS. It answers a body it cannot apply with a bare 500, and PowerDNS applies nothing of a
// refused PATCH; the client isolates the refused record (an unquoted TXT value, which external-dns's
// pdns provider sends as is and PowerDNS refuses) and every other record of the call is published.
func TestWebhookRefusalIsolatedAgainstExternalDNSServer(t *testing.T) {
	for _, peer := range testbed.ExternalDNSPeers(t) {
		t.Run(peer.Version, func(t *testing.T) {
			pd := testbed.StartPowerDNS(t, "example.com")
			ext := externalDNSPowerDNSWebhook(t, peer, pd)
			p, err := webhook.New(webhook.Config{URL: ext.URL})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			df, err := p.DomainFilter(ctx)
			if err != nil || !df.Match("www.example.com") || df.Match("www.example.org") {
				t.Fatalf("negotiated %v (%v), want example.com", df.Filters(), err)
			}
			var create []*endpoint.Endpoint
			for i := 0; i < 16; i++ {
				rec := endpoint.NewWithTTL(fmt.Sprintf("host%d.example.com", i), endpoint.RecordTypeA, 300, fmt.Sprintf("192.0.2.%d", i+1))
				create = append(create, rec, endpoint.NewWithTTL("a-"+rec.DNSName, endpoint.RecordTypeTXT, 300, ownership("e2e", "ingress/default/h")).
					WithLabel(endpoint.OwnedRecordLabelKey, rec.DNSName))
				if i == 11 {
					create = append(create, endpoint.NewWithTTL("bad.example.com", endpoint.RecordTypeTXT, 300, "unquoted value"))
				}
			}
			err = p.ApplyChanges(ctx, &plan.Changes{Create: create})
			ae, ok := provider.AsApplyError(err)
			if !ok || len(ae.Rejected) != 1 || ae.Rejected[0].Endpoint.DNSName != "bad.example.com" || !strings.Contains(ae.Rejected[0].Err.Error(), "HTTP 500") {
				t.Fatalf("ApplyChanges = %v, want bad.example.com alone refused with the server's 500", err)
			}
			for i := 0; i < 16; i++ {
				expectPowerDNS(t, pd, time.Second, fmt.Sprintf("host%d.example.com", i), dns.TypeA, fmt.Sprintf("192.0.2.%d", i+1))
			}
			expectPowerDNS(t, pd, time.Second, "a-host11.example.com", dns.TypeTXT, ownershipOnWire("e2e", "ingress/default/h"))
			recs, err := p.Records(ctx)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, r := range recs {
				if strings.HasPrefix(r.DNSName, "host") || strings.HasPrefix(r.DNSName, "a-host") {
					n++
				}
			}
			if n != 32 {
				t.Errorf("GET /records lists %d of the 32 records written", n)
			}
		})
	}
}

// An Ingress on the real kube-apiserver, published by zonekeeper --provider=webhook through
// external-dns's webhook server to PowerDNS: answered over DNS, moved by an event, removed under sync.
func TestIngressThroughWebhookToExternalDNSServer(t *testing.T) {
	for _, peer := range testbed.ExternalDNSPeers(t) {
		t.Run(peer.Version, func(t *testing.T) {
			kube := testbed.StartKubeAPIServer(t)
			pd := testbed.StartPowerDNS(t, "example.com")
			ext := externalDNSPowerDNSWebhook(t, peer, pd)
			e := &env{kube: kube, client: kube.Client(t)}
			seedPowerDNS(t, pd, "manual.example.com.", "A", "10.8.8.8")
			ing := e.createIngress(t, ingress("web", "default", nil, "hook.example.com"), "192.0.2.61")
			z := e.start(t, "--source=ingress", "--provider=webhook", "--webhook-provider-url="+ext.URL,
				"--txt-owner-id=e2e", "--policy=sync", "--interval=1h")

			expectPowerDNS(t, pd, converge, "hook.example.com", dns.TypeA, "192.0.2.61")
			expectPowerDNS(t, pd, time.Second, "a-hook.example.com", dns.TypeTXT, ownershipOnWire("e2e", "ingress/default/web"))
			e.setIngressIP(t, ing, "192.0.2.62")
			expectPowerDNS(t, pd, 5*time.Second, "hook.example.com", dns.TypeA, "192.0.2.62")
			if err := e.client.NetworkingV1().Ingresses("default").Delete(context.Background(), ing.Name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			expectPowerDNS(t, pd, 5*time.Second, "hook.example.com", dns.TypeA)
			expectPowerDNS(t, pd, time.Second, "a-hook.example.com", dns.TypeTXT)
			expectPowerDNS(t, pd, time.Second, "manual.example.com", dns.TypeA, "10.8.8.8")
			if !strings.Contains(z.log.String(), "Negotiated with the webhook provider") {
				t.Error("the negotiation was not logged")
			}
			status, body, err := z.get("/metrics")
			if err != nil || status != http.StatusOK || !strings.Contains(body, "external_dns_webhook_provider_applychanges_requests_total") {
				t.Errorf("metrics: %d %v, webhook counters missing", status, err)
			}
		})
	}
}

// The real external-dns, as a webhook client, keeps the alias annotation's alias property (and a
// webhook- annotation's webhook/ one) for the server; PowerDNS does not read them and lists the record
// without them. `zonekeeper webhook --provider=pdns` drops what its kind does not read when the client
// asks it to adjust, so the second run is in sync; without the drop, external-dns v0.23 rewrote the
// record on every run (v0.21 was already in sync).
func TestExternalDNSAliasThroughZonekeeperWebhookServerIsInSync(t *testing.T) {
	for _, peer := range testbed.ExternalDNSPeers(t) {
		t.Run(peer.Version, func(t *testing.T) {
			kube := testbed.StartKubeAPIServer(t)
			pd := testbed.StartPowerDNS(t, "example.com")
			e := &env{kube: kube, client: kube.Client(t), peer: peer}
			t.Setenv("EXTERNAL_DNS_PDNS_API_KEY", pd.APIKey)
			url, _ := startZonekeeperWebhook(t, "--provider=pdns", "--pdns-server="+pd.APIURL, "--domain-filter=example.com")
			e.createIngress(t, ingress("aliased", "default", map[string]string{
				"external-dns.alpha.kubernetes.io/alias":            "true",
				"external-dns.alpha.kubernetes.io/webhook-zone-tag": "blue",
			}, "aliased.example.com"), "192.0.2.72")
			runExternalDNSWebhookClient(t, e, url)
			expectPowerDNS(t, pd, time.Second, "aliased.example.com", dns.TypeA, "192.0.2.72")
			if out := runExternalDNSWebhookClient(t, e, url); !strings.Contains(out, "All records are already up to date") {
				t.Errorf("the second run is not in sync:\n%s", tail(out, 3000))
			}
		})
	}
}

// startZonekeeperWebhook runs `zonekeeper webhook` in-process on a free port and returns its URL.
func startZonekeeperWebhook(t *testing.T, flags ...string) (string, *testbed.LogBuffer) {
	t.Helper()
	addr := fmt.Sprintf("127.0.0.1:%d", testbed.FreePort(t))
	log := &testbed.LogBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	args := append([]string{"webhook", "--webhook-server-address=" + addr,
		fmt.Sprintf("--metrics-address=127.0.0.1:%d", testbed.FreePort(t))}, flags...)
	go func() { done <- app.Main(ctx, args, &bytes.Buffer{}, log, os.Getenv) }()
	t.Cleanup(func() {
		cancel()
		<-done
		if t.Failed() {
			t.Logf("zonekeeper webhook log:\n%s", tail(log.String(), 6000))
		}
	})
	url := "http://" + addr
	testbed.Eventually(t, 10*time.Second, "zonekeeper webhook listening", func() error {
		resp, err := http.Get(url + "/healthz")
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	})
	return url, log
}

// runExternalDNSWebhookClient runs the real external-dns (e.peer) once as a controller with
// --provider=webhook.
func runExternalDNSWebhookClient(t *testing.T, e *env, url string) string {
	t.Helper()
	return e.runExternalDNSFlags(t, "--once", "--log-level=debug",
		"--source=ingress", "--provider=webhook", "--webhook-provider-url="+url, "--registry=txt",
		"--txt-owner-id=ext", "--policy=sync", "--domain-filter=example.com", "--kubeconfig="+e.kube.Kubeconfig)
}

// The real external-dns, as a controller with --provider=webhook, publishes through `zonekeeper
// webhook --provider=pdns` to PowerDNS: zonekeeper's server speaks the protocol as external-dns's
// client expects it, and the zone reads back in sync on the next run.
func TestExternalDNSThroughZonekeeperWebhookServer(t *testing.T) {
	for _, peer := range testbed.ExternalDNSPeers(t) {
		t.Run(peer.Version, func(t *testing.T) {
			kube := testbed.StartKubeAPIServer(t)
			pd := testbed.StartPowerDNS(t, "example.com")
			e := &env{kube: kube, client: kube.Client(t), peer: peer}
			t.Setenv("EXTERNAL_DNS_PDNS_API_KEY", pd.APIKey)
			url, _ := startZonekeeperWebhook(t, "--provider=pdns", "--pdns-server="+pd.APIURL, "--domain-filter=example.com")
			ing := e.createIngress(t, ingress("web", "default", nil, "peer.example.com"), "192.0.2.71")

			runExternalDNSWebhookClient(t, e, url)
			expectPowerDNS(t, pd, time.Second, "peer.example.com", dns.TypeA, "192.0.2.71")
			expectPowerDNS(t, pd, time.Second, "a-peer.example.com", dns.TypeTXT, ownershipOnWire("ext", "ingress/default/web"))
			if out := runExternalDNSWebhookClient(t, e, url); !strings.Contains(out, "All records are already up to date") {
				t.Errorf("the second run is not in sync:\n%s", tail(out, 3000))
			}
			// zonekeeper, as the client of the same server, reads external-dns's records as in sync.
			e.expectPlan(t, app.ExitOK, "No changes", "--kubeconfig="+kube.Kubeconfig, "--source=ingress", "--provider=webhook",
				"--webhook-provider-url="+url, "--registry=txt", "--txt-owner-id=ext", "--domain-filter=example.com")
			if err := e.client.NetworkingV1().Ingresses("default").Delete(context.Background(), ing.Name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			runExternalDNSWebhookClient(t, e, url)
			expectPowerDNS(t, pd, time.Second, "peer.example.com", dns.TypeA)
			expectPowerDNS(t, pd, time.Second, "a-peer.example.com", dns.TypeTXT)
		})
	}
}

// `zonekeeper webhook --dry-run`, as external-dns's --webhook-server --dry-run: changes are logged and
// answered 204, and nothing is written.
func TestZonekeeperWebhookServerDryRun(t *testing.T) {
	url, log := startZonekeeperWebhook(t, "--provider=inmemory", "--inmemory-zone=example.com", "--dry-run")
	p, err := webhook.New(webhook.Config{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{endpoint.New("dry.example.com", "A", "192.0.2.1")}}); err != nil {
		t.Fatal(err)
	}
	recs, err := p.Records(ctx)
	if err != nil || len(recs) != 0 {
		t.Fatalf("records after a dry run: %v %v", recs, err)
	}
	if !strings.Contains(log.String(), "Desired change: CREATE dry.example.com A (dry run)") {
		t.Errorf("the change was not logged:\n%s", log.String())
	}
}

// flappingProxy forwards to target and answers every other request with 500 while failing is set.
type flappingProxy struct {
	proxy            *httputil.ReverseProxy
	failing          atomic.Bool
	requests, failed atomic.Int64
}

func (f *flappingProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := f.requests.Add(1)
	if f.failing.Load() && n%2 == 0 {
		f.failed.Add(1)
		http.Error(w, "injected failure", http.StatusInternalServerError)
		return
	}
	f.proxy.ServeHTTP(w, r)
}

// Issue 11 fault suite: the webhook provider (the real external-dns webhook server in front of
// PowerDNS) fails every other request for 40 s while Ingresses are created, changed and deleted.
// zonekeeper never exits; afterwards every change is in the zone, the record it does not own is
// untouched, and with the faults gone and nothing changing it sends no request at all.
func TestWebhookProviderFailingEveryOtherRequest(t *testing.T) {
	peers := testbed.ExternalDNSPeers(t)
	peer := peers[len(peers)-1]
	kube := testbed.StartKubeAPIServer(t)
	pd := testbed.StartPowerDNS(t, "example.com")
	ext := externalDNSPowerDNSWebhook(t, peer, pd)
	target, err := url.Parse(ext.URL)
	if err != nil {
		t.Fatal(err)
	}
	flap := &flappingProxy{proxy: httputil.NewSingleHostReverseProxy(target)}
	front := httptest.NewServer(flap)
	t.Cleanup(front.Close)

	e := &env{kube: kube, client: kube.Client(t)}
	seedPowerDNS(t, pd, "manual.example.com.", "A", "10.8.8.8")
	first := e.createIngress(t, ingress("first", "default", nil, "first.example.com"), "10.60.0.1")
	doomed := e.createIngress(t, ingress("doomed", "default", nil, "doomed.example.com"), "10.60.0.2")
	z := e.start(t, "--source=ingress", "--provider=webhook", "--webhook-provider-url="+front.URL,
		"--txt-owner-id=e2e", "--policy=sync", "--interval=1h")
	expectPowerDNS(t, pd, converge, "first.example.com", dns.TypeA, "10.60.0.1")
	expectPowerDNS(t, pd, converge, "doomed.example.com", dns.TypeA, "10.60.0.2")

	flap.failing.Store(true)
	for i := range 10 {
		e.createIngress(t, ingress(fmt.Sprintf("n%d", i), "default", nil, fmt.Sprintf("n%d.example.com", i)), fmt.Sprintf("10.60.1.%d", i+1))
		time.Sleep(2 * time.Second)
	}
	first = e.setIngressIP(t, first, "10.60.0.11")
	if err := e.client.NetworkingV1().Ingresses("default").Delete(context.Background(), doomed.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Second)
	if !z.running() {
		t.Fatalf("zonekeeper exited:\n%s", tail(z.log.String(), 4000))
	}
	failed := flap.failed.Load()
	flap.failing.Store(false)
	t.Logf("%d of %d webhook requests failed during the faults", failed, flap.requests.Load())
	if failed == 0 {
		t.Fatal("no request failed: the fault was not exercised")
	}

	for i := range 10 {
		expectPowerDNS(t, pd, 90*time.Second, fmt.Sprintf("n%d.example.com", i), dns.TypeA, fmt.Sprintf("10.60.1.%d", i+1))
	}
	expectPowerDNS(t, pd, 30*time.Second, "first.example.com", dns.TypeA, "10.60.0.11")
	expectPowerDNS(t, pd, 30*time.Second, "doomed.example.com", dns.TypeA)
	expectPowerDNS(t, pd, 10*time.Second, "a-doomed.example.com", dns.TypeTXT)
	expectPowerDNS(t, pd, time.Second, "manual.example.com", dns.TypeA, "10.8.8.8")

	time.Sleep(3 * time.Second)
	before := flap.requests.Load()
	time.Sleep(15 * time.Second)
	if n := flap.requests.Load() - before; n != 0 {
		t.Errorf("%d webhook requests in 15 quiet seconds after convergence (resync is 1 h)", n)
	}
}

// webhookPropertySpy is the provider behind a recording webhook server: it notes the name of every
// provider-specific property it is sent, to adjust or to apply.
type webhookPropertySpy struct {
	provider.Wrapped
	mu    sync.Mutex
	names map[string]bool
}

func (s *webhookPropertySpy) note(eps []*endpoint.Endpoint) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range eps {
		for _, p := range e.ProviderSpecific {
			s.names[p.Name] = true
		}
	}
}

func (s *webhookPropertySpy) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	s.note(eps)
	return s.Wrapped.AdjustEndpoints(ctx, eps)
}

func (s *webhookPropertySpy) ApplyChanges(ctx context.Context, c *plan.Changes) error {
	s.note(c.Create)
	s.note(c.UpdateNew)
	return s.Provider.ApplyChanges(ctx, c)
}

func (s *webhookPropertySpy) sorted() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.names))
	for n := range s.names {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Provider-specific annotations with --provider=webhook, zonekeeper against the real external-dns as
// the client of a recording webhook server: both send it the webhook- annotation's webhook/ property
// and the alias annotation's alias, and nothing of the aws- and cloudflare- ones (external-dns's
// post-processor keeps only "<--provider>/" properties and alias; zonekeeper drops the others per
// view, and reports them on the object since no configured provider reads them).
func TestWebhookClientsSendOnlyWebhookProperties(t *testing.T) {
	for _, peer := range testbed.ExternalDNSPeers(t) {
		t.Run(peer.Version, func(t *testing.T) {
			kube := testbed.StartKubeAPIServer(t)
			e := &env{kube: kube, client: kube.Client(t), peer: peer}
			e.createIngress(t, ingress("props", "default", map[string]string{
				"external-dns.alpha.kubernetes.io/aws-weight":         "10",
				"external-dns.alpha.kubernetes.io/cloudflare-proxied": "true",
				"external-dns.alpha.kubernetes.io/webhook-zone-tag":   "blue",
				"external-dns.alpha.kubernetes.io/alias":              "true",
			}, "props.example.com"), "192.0.2.81")
			sent := map[string][]string{}
			for _, client := range []struct {
				name string
				run  func(url string)
			}{
				{"external-dns", func(url string) { runExternalDNSWebhookClient(t, e, url) }},
				{"zonekeeper", func(url string) {
					e.expectPlan(t, app.ExitHasChanges, "CREATE", "--kubeconfig="+kube.Kubeconfig, "--source=ingress", "--provider=webhook",
						"--webhook-provider-url="+url, "--registry=txt", "--txt-owner-id=ext", "--domain-filter=example.com")
				}},
			} {
				spy := &webhookPropertySpy{Wrapped: provider.Wrapped{Provider: inmemory.New("example.com")}, names: map[string]bool{}}
				srv := httptest.NewServer(webhook.Handler(spy, plan.DomainFilter{}, nil))
				client.run(srv.URL)
				srv.Close()
				sent[client.name] = spy.sorted()
			}
			want := []string{"alias", "webhook/zone-tag"}
			for name, got := range sent {
				if !slices.Equal(got, want) {
					t.Errorf("%s sent the webhook server properties %q, want %q", name, got, want)
				}
			}
		})
	}
}
