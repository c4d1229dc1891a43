package gateway

import (
	"context"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	gt "github.com/zonekeeper/zonekeeper/internal/source/gateway/gatewaytest"

	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/source/sourcetest"
)

// The events of a Gateway, a ListenerSet and a Namespace name the routes that read them — those
// attached to the Gateway or its ListenerSets, to the ListenerSet, or in the Namespace and attached
// to its ListenerSets — never every route; a Gateway no route names concerns none. For each, the
// named routes' ObjectEndpoints give what Endpoints publishes there.
func TestGatewayEventsNameTheRoutesThatReadThem(t *testing.T) {
	c := startCluster(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	all := func(name string) gt.Listener { return gt.Listener{Name: name, From: gwv1.NamespacesFromAll} }
	nss := []gt.Namespace{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	gws := []gt.Gateway{
		{Namespace: "a", Name: "gw", Addresses: []string{"192.0.2.1"}, AllowedListeners: gwv1.NamespacesFromAll, Listeners: []gt.Listener{all("l")}},
		{Namespace: "a", Name: "idle", Addresses: []string{"192.0.2.2"}, Listeners: []gt.Listener{all("l")}},
	}
	routes := []gt.Route{
		http("a", "r1", []string{"one.example.com"}, acc("gw")),
		http("b", "r2", []string{"two.example.com"}, gt.Parent{Namespace: "a", Name: "gw", Accepted: yes}),
		http("c", "r3", []string{"three.ls.example.com"}, gt.Parent{Kind: "ListenerSet", Namespace: "b", Name: "ls", Accepted: yes}),
		http("c", "r4", []string{"four.example.com"}, acc("elsewhere")),
	}
	sets := []gt.ListenerSet{{Namespace: "b", Name: "ls", Gateway: "a/gw", Accepted: yes,
		Listeners: []gt.Listener{{Name: "x", Hostname: "*.ls.example.com", Port: 81, From: gwv1.NamespacesFromAll}}}}
	if err := c.clients.Create(ctx, nss, gws, routes); err != nil {
		t.Fatal(err)
	}
	if err := c.clients.CreateListenerSets(ctx, sets); err != nil {
		t.Fatal(err)
	}
	src, err := HTTPRouteKind().New(ctx, source.Env{Kube: c.api.Kube(t), REST: c.api.Config, Dynamic: c.clients.Dynamic,
		Config: source.Config{GatewayListenerSets: true}})
	if err != nil {
		t.Fatal(err)
	}
	s := src.(*Source)
	full, err := s.Endpoints(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := describe(full.Endpoints); !slices.Equal(got, []string{"one.example.com A 192.0.2.1 httproute/a/r1",
		"three.ls.example.com A 192.0.2.1 httproute/c/r3", "two.example.com A 192.0.2.1 httproute/b/r2"}) {
		t.Fatalf("Endpoints: %q", got)
	}
	named := make(chan string, 100)
	s.AddObjectHandler(func(resource string) { named <- resource })
	// expect waits for exactly the wanted labels; their ObjectEndpoints must match Endpoints.
	expect := func(what string, want ...string) {
		t.Helper()
		sourcetest.ObjectEndpointsMatch(t, s, sourcetest.ExpectNamed(t, named, what, want...))
	}

	c.setGatewayAddress(t, "a", "gw", "192.0.2.99")
	expect("the Gateway's address change", "httproute/a/r1", "httproute/b/r2", "httproute/c/r3")

	ns, err := c.clients.Kube.CoreV1().Namespaces().Get(ctx, "b", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ns.Labels["env"] = "prod"
	if _, err := c.clients.Kube.CoreV1().Namespaces().Update(ctx, ns, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	expect("namespace b's labels", "httproute/b/r2", "httproute/c/r3")

	ls, err := c.clients.Dynamic.Resource(listenerSetResource).Namespace("b").Get(ctx, "ls", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ls.SetAnnotations(map[string]string{"external-dns.alpha.kubernetes.io/target": "ls-lb.example.net"})
	if _, err := c.clients.Dynamic.Resource(listenerSetResource).Namespace("b").Update(ctx, ls, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	expect("the ListenerSet's target", "httproute/c/r3")

	// A Gateway no route names, and a Namespace without routes or ListenerSets, concern no route.
	idle, ok, err := s.gateways.GetByKey("a/idle")
	if err != nil || !ok {
		t.Fatalf("a/idle not cached: %v", err)
	}
	if got := s.gatewayDependents(idle); len(got) != 0 {
		t.Fatalf("the idle Gateway names %q", got)
	}
	nsA, ok, err := s.nss.GetByKey("a")
	if err != nil || !ok {
		t.Fatalf("namespace a not cached: %v", err)
	}
	if got := s.namespaceDependents(nsA); !slices.Equal(got, []string{"httproute/a/r1"}) {
		t.Fatalf("namespace a names %q, want its one route", got)
	}
}
