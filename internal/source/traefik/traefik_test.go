package traefik

import (
	"context"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/source/sourcetest"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

const ann = sourcetest.AnnotationPrefix

// installWithLegacy and installWithoutLegacy install the route CRDs of traefik.io, the first also
// those of the legacy group traefik.containo.us, in the form sourcetest.StartCluster takes.
func installWithLegacy(t testing.TB, api *testbed.KubeAPIServer) []string {
	return testbed.InstallTraefik(t, api, true)
}

func installWithoutLegacy(t testing.TB, api *testbed.KubeAPIServer) []string {
	return testbed.InstallTraefik(t, api, false)
}

// route builds a route of kind (IngressRoute, IngressRouteTCP, IngressRouteUDP) in group with rules and
// annotations kv (sourcetest.Annotations).
func route(group, kind, ns, name string, rules []string, kv ...string) *unstructured.Unstructured {
	var routes []any
	for _, r := range rules {
		routes = append(routes, map[string]any{"match": r})
	}
	if kind == "IngressRouteUDP" {
		routes = []any{map[string]any{"services": []any{map[string]any{"name": "dns", "port": int64(53)}}}}
	}
	return sourcetest.Object(group+"/v1alpha1", kind, ns, name, sourcetest.Annotations(kv...), map[string]any{"routes": routes}, nil)
}

// Traefik routes of both API groups on a real API server with the CRDs of Traefik's own module: names
// from Host rules and the hostname annotation, targets from the target annotation only, the group
// flags, the filters and the template, and bad input as Problems naming the field.
func TestTraefikRoutes(t *testing.T) {
	_, dyn := sourcetest.StartCluster(t, installWithLegacy,
		route(Group, "IngressRoute", "default", "web", []string{"Host(`a.example.com`, `b.example.com`) && PathPrefix(`/`)", "Host(`c.example.com`) || HostRegexp(`^x$`)"},
			"target", "192.0.2.1", "ttl", "120"),
		route(Group, "IngressRouteTCP", "default", "tcp", []string{"HostSNI(`tcp.example.com`)", "HostSNI(`*`)"}, "target", "lb.example.net"),
		route(Group, "IngressRouteUDP", "default", "udp", nil, "target", "192.0.2.3,2001:db8::3", "hostname", "udp.example.com"),
		route(Group, "IngressRoute", "default", "notarget", []string{"Host(`nt.example.com`)"}),
		route(LegacyGroup, "IngressRoute", "default", "legacy", []string{"Host(`legacy.example.com`)"}, "target", "192.0.2.4"),
		route(Group, "IngressRoute", "default", "bad", []string{"Host(`bad_name!.example.com`)"},
			"target", "192.0.2.5", "ttl", "abc", "hostname", "ok.example.com"),
		route(Group, "IngressRoute", "other", "ctrl", []string{"Host(`ctrl.example.com`)"}, "target", "192.0.2.6", "controller", "someone-else"),
		route(Group, "IngressRoute", "other", "weighted", []string{"Host(`w.example.com`)"}, "target", "192.0.2.7",
			"set-identifier", "blue", "aws-weight", "10"),
		route(Group, "IngressRoute", "default", "wild", []string{"Host(`*.wild.example.com`)"}, "target", "192.0.2.11"),
		route(Group, "IngressRoute", "other", "nohost", []string{"PathPrefix(`/x`)"}, "target", "192.0.2.8"),
	)
	env := source.Env{Dynamic: dyn}
	newOnly := []string{
		"*.wild.example.com A 192.0.2.11 ingressroute/default/wild",
		"a.example.com A 192.0.2.1 ingressroute/default/web ttl=120",
		"b.example.com A 192.0.2.1 ingressroute/default/web ttl=120",
		"c.example.com A 192.0.2.1 ingressroute/default/web ttl=120",
		"ok.example.com A 192.0.2.5 ingressroute/default/bad",
		"tcp.example.com CNAME lb.example.net ingressroutetcp/default/tcp",
		"udp.example.com A 192.0.2.3 ingressrouteudp/default/udp",
		"udp.example.com AAAA 2001:db8::3 ingressrouteudp/default/udp",
		"w.example.com A 192.0.2.7 ingressroute/other/weighted set=blue aws/weight=10",
	}
	src, got, problems := run(t, env, source.Config{})
	if !reflect.DeepEqual(got, newOnly) {
		t.Errorf("traefik.io routes:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(newOnly, "\n"))
	}
	for _, want := range []string{"spec.routes[0].match", "bad_name!.example.com", ann + "ttl", "abc"} {
		if ps := sourcetest.Problems(problems); !strings.Contains(ps, want) {
			t.Errorf("no problem names %q: %s", want, ps)
		}
	}
	// Events land on the route: the lookup by API kind or resource label kind finds it, kind set.
	for _, kind := range []string{"IngressRoute", "ingressroute"} {
		obj, ok := src.LookupObject(kind, "default", "bad")
		if !ok || obj.GetObjectKind().GroupVersionKind() != (schema.GroupVersionKind{Group: Group, Version: version, Kind: "IngressRoute"}) {
			t.Errorf("LookupObject(%s): %v %v", kind, obj, ok)
		}
	}
	if _, ok := src.LookupObject("IngressRouteTCP", "default", "web"); ok {
		t.Error("LookupObject found an IngressRoute as an IngressRouteTCP")
	}

	legacy := "legacy.example.com A 192.0.2.4 ingressroute/default/legacy"
	_, got, _ = run(t, env, source.Config{TraefikEnableLegacy: true})
	if want := append(append([]string(nil), newOnly...), legacy); !equalSorted(got, want) {
		t.Errorf("--traefik-enable-legacy:\n%s", strings.Join(got, "\n"))
	}
	_, got, _ = run(t, env, source.Config{TraefikEnableLegacy: true, TraefikDisableNew: true})
	if !reflect.DeepEqual(got, []string{legacy}) {
		t.Errorf("--traefik-enable-legacy --traefik-disable-new: %v", got)
	}
	_, got, _ = run(t, env, source.Config{Namespace: "other", AnnotationFilter: ann + "set-identifier"})
	if !reflect.DeepEqual(got, []string{"w.example.com A 192.0.2.7 ingressroute/other/weighted set=blue aws/weight=10"}) {
		t.Errorf("--namespace=other --annotation-filter: %v", got)
	}
	_, got, _ = run(t, env, source.Config{Namespace: "other", FQDNTemplate: "{{.Name}}.{{.Kind}}.tmpl.example.com"})
	want := []string{
		"nohost.ingressroute.tmpl.example.com A 192.0.2.8 ingressroute/other/nohost",
		"w.example.com A 192.0.2.7 ingressroute/other/weighted set=blue aws/weight=10",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("--fqdn-template: %v", got)
	}
	_, got, _ = run(t, env, source.Config{Namespace: "default", FQDNTemplate: "{{.Name}}.tmpl.example.com", IgnoreHostnameAnnotation: true, CombineFQDNAndAnnotation: true})
	for _, w := range []string{"web.tmpl.example.com A 192.0.2.1 ingressroute/default/web ttl=120", "a.example.com A 192.0.2.1 ingressroute/default/web ttl=120"} {
		if !slices.Contains(got, w) {
			t.Errorf("--combine-fqdn-annotation: no %q in %v", w, got)
		}
	}
	for _, g := range got {
		if strings.HasPrefix(g, "ok.example.com") || strings.HasPrefix(g, "udp.example.com") {
			t.Errorf("--ignore-hostname-annotation: %q", g)
		}
	}
}

// A route change reaches the handlers, and the next pass has it.
func TestTraefikFollowsChanges(t *testing.T) {
	kube, dyn := sourcetest.StartCluster(t, installWithoutLegacy)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	src, err := Kind().New(ctx, source.Env{Dynamic: dyn})
	if err != nil {
		t.Fatal(err)
	}
	fired := make(chan struct{}, 10)
	src.AddEventHandler(func() { fired <- struct{}{} })
	sourcetest.Create(t, kube, dyn, route(Group, "IngressRouteTCP", "default", "late", []string{"HostSNI(`late.example.com`)"}, "target", "192.0.2.9"))
	select {
	case <-fired:
	case <-time.After(10 * time.Second):
		t.Fatal("no event for a new IngressRouteTCP")
	}
	res, err := src.Endpoints(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := sourcetest.Describe(res.Endpoints); !reflect.DeepEqual(got, []string{"late.example.com A 192.0.2.9 ingressroutetcp/default/late"}) {
		t.Errorf("after the change: %v", got)
	}
}

func equalSorted(a, b []string) bool {
	a, b = append([]string(nil), a...), append([]string(nil), b...)
	sort.Strings(a)
	sort.Strings(b)
	return reflect.DeepEqual(a, b)
}

func run(t *testing.T, env source.Env, cfg source.Config) (*source.CRDSource, []string, []endpoint.Problem) {
	t.Helper()
	src, got, problems := sourcetest.Endpoints(t, Kind(), env, cfg)
	return src.(*source.CRDSource), got, problems
}
