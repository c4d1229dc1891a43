package gateway

import (
	"context"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	gt "github.com/zonekeeper/zonekeeper/internal/source/gateway/gatewaytest"

	"github.com/zonekeeper/zonekeeper/internal/source"
)

// A route's events name the route; a Gateway's name the routes attached to it. ObjectEndpoints for
// one of two routes merged at one name answers for both, with what Endpoints publishes there: the
// first route in namespace/name order gives the TTL.
func TestGatewayRouteEventsNameTheirRoute(t *testing.T) {
	c := startCluster(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := c.clients.Create(ctx, []gt.Namespace{{Name: "a"}},
		[]gt.Gateway{gw("a", "gw", []string{"192.0.2.1"}, lis("l", ""))},
		[]gt.Route{ann(http("a", "r1", []string{"shared.example.com"}, acc("gw")), "ttl", "60"),
			http("a", "r2", []string{"shared.example.com"}, acc("gw"))}); err != nil {
		t.Fatal(err)
	}
	src, err := HTTPRouteKind().New(ctx, source.Env{Kube: c.api.Kube(t), REST: c.api.Config, Config: source.Config{}})
	if err != nil {
		t.Fatal(err)
	}
	o, ok := src.(source.ObjectSource)
	if !ok || !slices.Equal(o.ObjectKinds(), []string{"httproute"}) {
		t.Fatalf("the HTTPRoute source is not an ObjectSource for httproute (%T)", src)
	}
	named := make(chan string, 100)
	o.AddObjectHandler(func(resource string) { named <- resource })
	expect := func(what, want string) {
		t.Helper()
		deadline := time.After(30 * time.Second)
		for {
			select {
			case got := <-named:
				if got == want {
					return
				}
			case <-deadline:
				t.Fatalf("%s: no event naming %q", what, want)
			}
		}
	}
	if _, err := src.Endpoints(ctx); err != nil {
		t.Fatal(err)
	}
	rt, err := c.clients.Gateway.GatewayV1().HTTPRoutes("a").Get(ctx, "r2", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rt.Spec.Hostnames = []gwv1.Hostname{"shared.example.com", "two.example.com"}
	if _, err := c.clients.Gateway.GatewayV1().HTTPRoutes("a").Update(ctx, rt, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	expect("a route's update", "httproute/a/r2")
	res, err := o.ObjectEndpoints(ctx, []string{"httproute/a/r2"})
	if err != nil {
		t.Fatal(err)
	}
	full, err := src.Endpoints(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := describe(res.Endpoints), describe(full.Endpoints); !slices.Equal(got, want) ||
		!slices.Equal(got, []string{"shared.example.com A 192.0.2.1 httproute/a/r1 ttl=60", "two.example.com A 192.0.2.1 httproute/a/r2"}) {
		t.Fatalf("ObjectEndpoints(r2) %q; Endpoints %q", got, want)
	}
	if !slices.Equal(res.Objects, []string{"httproute/a/r1", "httproute/a/r2"}) {
		t.Fatalf("the answer covers %v; want both routes", res.Objects)
	}
	c.setGatewayAddress(t, "a", "gw", "192.0.2.99")
	expect("a Gateway's update", "httproute/a/r1")
}
