package source

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/zonekeeper/zonekeeper/internal/kube"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

type countingTransport struct {
	next     http.RoundTripper
	reviews  *atomic.Int64
	discover *atomic.Int64
}

func (c countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	switch {
	case strings.Contains(r.URL.Path, "selfsubjectaccessreviews"):
		c.reviews.Add(1)
	case strings.HasPrefix(r.URL.Path, "/api"):
		c.discover.Add(1)
	}
	return c.next.RoundTrip(r)
}

// Kinds started together share one checker: the five gateway-* kinds read the same Gateways and
// Namespaces, and at the default --kube-api-qps=5 every repeated question cost 200 ms.
func TestAccessCheckerAsksOnce(t *testing.T) {
	api := testbed.StartKubeAPIServer(t)
	var reviews, discover atomic.Int64
	cfg := rest.CopyConfig(api.Config)
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return countingTransport{next: rt, reviews: &reviews, discover: &discover}
	}
	client, err := kube.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	a := NewAccessChecker(client)
	reads := []Resource{{Version: "v1", Resource: "services"}, {Version: "v1", Resource: "namespaces", ClusterScoped: true},
		{Group: "networking.k8s.io", Version: "v1", Resource: "ingresses"}, {Group: "example.io", Version: "v1", Resource: "widgets", CRD: true}}
	for range 5 {
		errs := a.Check(context.Background(), "", reads)
		if len(errs) != 1 || !errs[0].NotServed || errs[0].Resource.Resource != "widgets" {
			t.Fatalf("errors %v, want only widgets not served", errs)
		}
	}
	if n := reviews.Load(); n != 6 { // list and watch of the three served resources
		t.Errorf("%d access reviews for 5 identical checks, want 6", n)
	}
	if n := discover.Load(); n != 3 { // three group versions
		t.Errorf("%d discovery requests, want 3", n)
	}
}

// An API server that cannot be asked is not one that does not serve the resource: with a refused
// connection the check said "the API server does not serve core/v1 services (is its CRD installed?)",
// which sent users looking for a CRD instead of at their --kubeconfig.
func TestAccessCheckAgainstARefusedServerSaysItCannotAsk(t *testing.T) {
	client, err := kube.NewForConfig(&rest.Config{Host: "https://127.0.0.1:1", TLSClientConfig: rest.TLSClientConfig{Insecure: true}})
	if err != nil {
		t.Fatal(err)
	}
	reads := []Resource{{Version: "v1", Resource: "services"}, {Group: "example.io", Version: "v1", Resource: "widgets", CRD: true, Optional: "widgets are optional"}}
	errs := NewAccessChecker(client).Check(context.Background(), "", reads)
	if len(errs) != 2 {
		t.Fatalf("errors %v, want one per resource", errs)
	}
	for i, e := range errs {
		if e.NotServed || e.Unasked == nil || !strings.Contains(e.Error(), "cannot ask the API server whether it serves") ||
			!strings.Contains(e.Error(), reads[i].Resource) || strings.Contains(e.Error(), "CRD installed") {
			t.Errorf("%s: %v (not served %v), want that the API server cannot be asked", reads[i].Resource, e, e.NotServed)
		}
	}
}
