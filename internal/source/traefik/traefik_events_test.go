package traefik

import (
	"context"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/source/sourcetest"
)

// With --traefik-enable-legacy the routes of both API groups name themselves in their events, as
// those of traefik.io alone do (the two groups label a kind alike: "ingressroute/ns/name" names the
// route of that namespace and name in either group), and ObjectEndpoints gives what Endpoints
// publishes there — merged kind by kind as Endpoints merges, so that a traefik.io route sharing a
// name with a legacy one gives the record its TTL and resource whatever their namespace/name order.
func TestTraefikLegacyEventsNameTheirRoutes(t *testing.T) {
	_, dyn := sourcetest.StartCluster(t, installWithLegacy,
		route(Group, "IngressRoute", "default", "b", []string{"Host(`shared.example.com`)"}, "target", "192.0.2.2", "ttl", "120"),
		route(LegacyGroup, "IngressRoute", "default", "a", []string{"Host(`shared.example.com`)"}, "target", "192.0.2.1", "ttl", "60"),
		route(Group, "IngressRoute", "default", "twin", []string{"Host(`twin-new.example.com`)"}, "target", "192.0.2.3"),
		route(LegacyGroup, "IngressRoute", "default", "twin", []string{"Host(`twin-old.example.com`)"}, "target", "192.0.2.4"),
		route(LegacyGroup, "IngressRouteTCP", "default", "tcp", []string{"HostSNI(`tcp.example.com`)"}, "target", "192.0.2.5"),
		route(LegacyGroup, "IngressRouteUDP", "other", "udp", nil, "target", "192.0.2.6", "hostname", "udp.example.com"),
	)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	built, err := Kind().New(ctx, source.Env{Dynamic: dyn, Config: source.Config{TraefikEnableLegacy: true}})
	if err != nil {
		t.Fatal(err)
	}
	src, ok := built.(source.ObjectSource)
	if !ok || !slices.Equal(src.ObjectKinds(), []string{"ingressroute", "ingressroutetcp", "ingressrouteudp"}) {
		t.Fatalf("with --traefik-enable-legacy the source is not an ObjectSource for the three route labels (%T)", built)
	}
	full, err := src.Endpoints(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"shared.example.com A 192.0.2.1,192.0.2.2 ingressroute/default/b ttl=120",
		"tcp.example.com A 192.0.2.5 ingressroutetcp/default/tcp",
		"twin-new.example.com A 192.0.2.3 ingressroute/default/twin",
		"twin-old.example.com A 192.0.2.4 ingressroute/default/twin",
		"udp.example.com A 192.0.2.6 ingressrouteudp/other/udp",
	}
	if got := sourcetest.Describe(full.Endpoints); !slices.Equal(got, want) {
		t.Fatalf("Endpoints:\n%q\nwant\n%q", got, want)
	}
	all := []string{"ingressroute/default/a", "ingressroute/default/b", "ingressroute/default/twin",
		"ingressroutetcp/default/tcp", "ingressrouteudp/other/udp"}
	sourcetest.ObjectEndpointsMatch(t, src, all)
	res, err := src.ObjectEndpoints(ctx, []string{"ingressroute/default/twin"})
	if err != nil {
		t.Fatal(err)
	}
	if got := sourcetest.Describe(res.Endpoints); !slices.Equal(got, want[2:4]) {
		t.Errorf("ObjectEndpoints(ingressroute/default/twin) %q: want the routes of both groups", got)
	}

	named := make(chan string, 100)
	src.AddObjectHandler(func(r string) { named <- r })
	update := func(group, resource, ns, name, ttl string) {
		t.Helper()
		res := dyn.Resource(schema.GroupVersionResource{Group: group, Version: version, Resource: resource}).Namespace(ns)
		u, err := res.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		a := u.GetAnnotations()
		a[sourcetest.AnnotationPrefix+"ttl"] = ttl
		u.SetAnnotations(a)
		if _, err := res.Update(ctx, u, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	update(LegacyGroup, "ingressroutes", "default", "a", "30")
	sourcetest.ExpectNamed(t, named, "a legacy IngressRoute's ttl", "ingressroute/default/a")
	update(LegacyGroup, "ingressroutetcps", "default", "tcp", "30")
	sourcetest.ExpectNamed(t, named, "a legacy IngressRouteTCP's ttl", "ingressroutetcp/default/tcp")
	update(LegacyGroup, "ingressrouteudps", "other", "udp", "30")
	sourcetest.ExpectNamed(t, named, "a legacy IngressRouteUDP's ttl", "ingressrouteudp/other/udp")
	update(Group, "ingressroutes", "default", "twin", "30")
	sourcetest.ExpectNamed(t, named, "a traefik.io IngressRoute's ttl", "ingressroute/default/twin")
	sourcetest.ObjectEndpointsMatch(t, src, all)
}
