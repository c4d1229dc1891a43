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
