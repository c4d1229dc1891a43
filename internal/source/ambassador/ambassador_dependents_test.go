package ambassador

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/source/sourcetest"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// A Service's event names exactly the Hosts whose Service annotation names it, in any of its three
// forms (a Host with the target annotation too) — never everything, never a Host naming another
// Service or a malformed one — and those Hosts' ObjectEndpoints give what Endpoints publishes there.
// With --namespace, a Service there still names its Hosts; one outside is read by GET, as before.
func TestServiceEventsNameTheHostsThatReadThem(t *testing.T) {
	api, kube, dyn := sourcetest.StartClusterServer(t, testbed.InstallAmbassador,
		service("ambassador", "edge", nil, "ip:192.0.2.1"),
		service("ambassador", "unused", nil, "ip:192.0.2.2"),
		service("default", "lb", nil, "hostname:lb.example.net"),
		service("team-a", "fixed", []string{"198.51.100.7"}),
		host(v2, "default", "slash", "slash.example.com", "ambassador/edge", "ttl", "60"),
		host(v2, "default", "dotted", "dotted.example.com", "edge.ambassador"),
		host(v2, "default", "bare", "bare.example.com", "lb"),
		host(v2, "default", "target", "target.example.com", "lb", "target", "203.0.113.3"),
		host(v2, "default", "unannotated", "unannotated.example.com", ""),
		host(v2, "default", "badref", "badref.example.com", "a/b/c"),
		host(v2, "team-a", "extip", "extip.example.com", "fixed.team-a"),
		host(v2, "team-a", "remote", "remote.example.com", "ambassador/edge"),
		host(v3, "team-a", "newer", "newer.example.com", "ambassador/edge"),
	)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	env := source.Env{Kube: api.Kube(t), Dynamic: dyn}
	build := func(cfg source.Config) *Source {
		t.Helper()
		env.Config = cfg
		built, err := Kind().New(ctx, env)
		if err != nil {
			t.Fatal(err)
		}
		return built.(*Source)
	}
	s := build(source.Config{})
	readers := &serviceReaders{}
	readers.hosts.Store(s.CRDSource)
	svc := func(ns, name string) *corev1.Service {
		t.Helper()
		got, err := kube.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	edgeHosts := []string{"host/default/dotted", "host/default/slash", "host/team-a/newer", "host/team-a/remote"}
	for _, tc := range []struct {
		what      string
		got, want []string
	}{
		{"Service ambassador/edge", readers.dependents(svc("ambassador", "edge")), edgeHosts},
		{"Service default/lb (a bare name)", readers.dependents(svc("default", "lb")), []string{"host/default/bare", "host/default/target"}},
		{"Service team-a/fixed (name.namespace)", readers.dependents(svc("team-a", "fixed")), []string{"host/team-a/extip"}},
		{"Service ambassador/unused", readers.dependents(svc("ambassador", "unused")), nil},
	} {
		if got := slices.Sorted(slices.Values(tc.got)); !slices.Equal(got, tc.want) {
			t.Errorf("%s names %q, want %q", tc.what, got, tc.want)
		}
		sourcetest.ObjectEndpointsMatch(t, s, tc.want)
	}
	if got := (&serviceReaders{}).dependents(svc("ambassador", "edge")); !slices.Equal(got, []string{""}) {
		t.Errorf("before the Hosts are cached, a Service's event names %q, not everything", got)
	}

	named := make(chan string, 100)
	s.AddObjectHandler(func(r string) { named <- r })
	setLoadBalancerIP(t, kube, "ambassador", "edge", "192.0.2.77")
	sourcetest.ExpectNamed(t, named, "Service ambassador/edge's new address", edgeHosts...)
	sourcetest.ObjectEndpointsMatch(t, s, edgeHosts)

	// --namespace=team-a: a Service there names its Host; edge, outside, is read by GET at every pass.
	nsSrc := build(source.Config{Namespace: "team-a"})
	if _, err := nsSrc.Endpoints(ctx); err != nil {
		t.Fatal(err)
	}
	if !source.ReadsUnwatched(nsSrc) {
		t.Error("--namespace=team-a reads ambassador/edge by GET, yet the source does not say it reads unwatched objects")
	}
	nsNamed := make(chan string, 100)
	nsSrc.AddObjectHandler(func(r string) { nsNamed <- r })
	fixed := svc("team-a", "fixed")
	fixed.Spec.ExternalIPs = []string{"198.51.100.8"}
	if _, err := kube.CoreV1().Services("team-a").Update(ctx, fixed, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	sourcetest.ExpectNamed(t, nsNamed, "Service team-a/fixed's external IP (--namespace=team-a)", "host/team-a/extip")
	sourcetest.ObjectEndpointsMatch(t, nsSrc, []string{"host/team-a/extip", "host/team-a/remote"})
}
