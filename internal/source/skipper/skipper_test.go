package skipper

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/source/skipper/skippertest"
	"github.com/zonekeeper/zonekeeper/internal/source/sourcetest"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// routeGroup is skippertest.RouteGroup without labels.
func routeGroup(apiVersion, ns, name string, hosts, ips, lbNames []string, kv ...string) *unstructured.Unstructured {
	return skippertest.RouteGroup(apiVersion, ns, name, hosts, ips, lbNames, nil, kv...)
}

func list(s ...string) []string { return s }

// RouteGroups on a real API server with the CRD of Skipper's own module: spec.hosts and the hostname
// annotation, the status load balancer or the target annotation, filters, the template and bad input.
func TestRouteGroups(t *testing.T) {
	rg := func(ns, name string, hosts, ips, lbNames []string, kv ...string) *unstructured.Unstructured {
		return routeGroup("zalando.org/v1", ns, name, hosts, ips, lbNames, kv...)
	}
	labelled := skippertest.RouteGroup("zalando.org/v1", "other", "labelled", list("lab.example.com"), list("192.0.2.9"), nil, map[string]string{"app": "web"})
	_, dyn := sourcetest.StartCluster(t, testbed.InstallSkipper,
		rg("default", "web", list("web.example.com", "web2.example.com"), list("192.0.2.1", "2001:db8::1"), nil, "ttl", "60"),
		rg("default", "lbhost", list("lbhost.example.com"), nil, list("lb.example.net"), "hostname", "alias.example.com"),
		rg("default", "target", list("target.example.com"), list("192.0.2.3"), nil, "target", "203.0.113.3"),
		rg("default", "nostatus", list("nostatus.example.com"), nil, nil),
		rg("default", "nohosts", nil, list("192.0.2.5"), nil),
		rg("default", "bad", list("bad.example.com"), list("192.0.2.6"), nil, "hostname", "*.wild.example.com,bad_name!.example.com", "ttl", "soon"),
		rg("other", "ctrl", list("ctrl.example.com"), list("192.0.2.7"), nil, "controller", "someone-else"),
		rg("other", "weighted", list("w.example.com"), list("192.0.2.8"), nil, "set-identifier", "blue", "aws-weight", "20"),
		labelled,
	)
	env := source.Env{Dynamic: dyn}
	all := []string{
		"*.wild.example.com A 192.0.2.6 routegroup/default/bad",
		"alias.example.com CNAME lb.example.net routegroup/default/lbhost",
		"bad.example.com A 192.0.2.6 routegroup/default/bad",
		"lab.example.com A 192.0.2.9 routegroup/other/labelled",
		"lbhost.example.com CNAME lb.example.net routegroup/default/lbhost",
		"target.example.com A 203.0.113.3 routegroup/default/target",
		"w.example.com A 192.0.2.8 routegroup/other/weighted set=blue aws/weight=20",
		"web.example.com A 192.0.2.1 routegroup/default/web ttl=60",
		"web.example.com AAAA 2001:db8::1 routegroup/default/web ttl=60",
		"web2.example.com A 192.0.2.1 routegroup/default/web ttl=60",
		"web2.example.com AAAA 2001:db8::1 routegroup/default/web ttl=60",
	}
	src, got, problems := run(t, env, source.Config{})
	if !reflect.DeepEqual(got, all) {
		t.Errorf("RouteGroups:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(all, "\n"))
	}
	ps := sourcetest.Problems(problems)
	for _, want := range []string{"RouteGroup default/bad", sourcetest.AnnotationPrefix + "hostname", "bad_name!.example.com", sourcetest.AnnotationPrefix + "ttl", "soon"} {
		if !strings.Contains(ps, want) {
			t.Errorf("no problem names %q: %s", want, ps)
		}
	}
	for _, kind := range []string{"RouteGroup", "routegroup"} {
		obj, ok := src.LookupObject(kind, "default", "bad")
		if !ok || obj.GetObjectKind().GroupVersionKind() != (schema.GroupVersionKind{Group: "zalando.org", Version: "v1", Kind: "RouteGroup"}) {
			t.Errorf("LookupObject(%s): %v %v", kind, obj, ok)
		}
	}
	_, got, _ = run(t, env, source.Config{Namespace: "default", FQDNTemplate: "{{.Metadata.Name}}.{{.Kind}}.tmpl.example.com", SkipperRouteGroupVersion: "zalando.org/v1"})
	if want := "nohosts.routegroup.tmpl.example.com A 192.0.2.5 routegroup/default/nohosts"; !slices.Contains(got, want) || slices.Contains(got, "web.routegroup.tmpl.example.com A 192.0.2.1 routegroup/default/web ttl=60") {
		t.Errorf("--fqdn-template: want %q (and no template name for route groups with names) in %v", want, got)
	}
	_, got, _ = run(t, env, source.Config{Namespace: "default", FQDNTemplate: `{{range .Spec.Hosts}}{{.}}x.example.org,{{end}}{{range .Status.LoadBalancer.RouteGroup}}{{if .Hostname}}via-{{.Hostname}}{{end}}{{end}}`, CombineFQDNAndAnnotation: true, IgnoreHostnameAnnotation: true})
	for _, want := range []string{"web.example.comx.example.org A 192.0.2.1 routegroup/default/web ttl=60", "web.example.com A 192.0.2.1 routegroup/default/web ttl=60",
		"via-lb.example.net CNAME lb.example.net routegroup/default/lbhost"} {
		if !slices.Contains(got, want) {
			t.Errorf("--combine-fqdn-annotation: no %q in %v", want, got)
		}
	}
	if slices.Contains(got, "alias.example.com CNAME lb.example.net routegroup/default/lbhost") {
		t.Errorf("--ignore-hostname-annotation: %v", got)
	}
	_, got, _ = run(t, env, source.Config{AnnotationFilter: sourcetest.AnnotationPrefix + "set-identifier"})
	if !reflect.DeepEqual(got, []string{"w.example.com A 192.0.2.8 routegroup/other/weighted set=blue aws/weight=20"}) {
		t.Errorf("--annotation-filter: %v", got)
	}
	_, got, _ = run(t, env, source.Config{LabelFilter: "app=web"})
	if !reflect.DeepEqual(got, []string{"lab.example.com A 192.0.2.9 routegroup/other/labelled"}) {
		t.Errorf("--label-filter: %v", got)
	}
}

// --skipper-routegroup-groupversion reads RouteGroups of that group and version, and only those; a value
// that is not <group>/<version> is refused naming the flag.
func TestRouteGroupVersionFlag(t *testing.T) {
	bothGroups := func(t testing.TB, api *testbed.KubeAPIServer) []string {
		return append(testbed.InstallSkipper(t, api), testbed.InstallSkipperInGroup(t, api, "routing.example.org")...)
	}
	_, dyn := sourcetest.StartCluster(t, bothGroups,
		routeGroup("zalando.org/v1", "default", "std", list("std.example.com"), list("192.0.2.1"), nil),
		routeGroup("routing.example.org/v1", "default", "moved", list("moved.example.com"), list("192.0.2.2"), nil),
	)
	env := source.Env{Dynamic: dyn}
	cfg := source.Config{SkipperRouteGroupVersion: "routing.example.org/v1"}
	if got := Kind().Reads(cfg); len(got) != 1 || got[0].String() != "routegroups.routing.example.org" || got[0].Version != "v1" || !got[0].CRD {
		t.Errorf("Reads: %+v", got)
	}
	_, got, _ := run(t, env, cfg)
	if !reflect.DeepEqual(got, []string{"moved.example.com A 192.0.2.2 routegroup/default/moved"}) {
		t.Errorf("--skipper-routegroup-groupversion=routing.example.org/v1: %v", got)
	}
	_, got, _ = run(t, env, source.Config{})
	if !reflect.DeepEqual(got, []string{"std.example.com A 192.0.2.1 routegroup/default/std"}) {
		t.Errorf("default group version: %v", got)
	}
	for _, bad := range []string{"v1", "zalando.org/", "zalando.org/v1/extra"} {
		if _, err := ParseGroupVersion(bad); err == nil || !strings.Contains(err.Error(), "--skipper-routegroup-groupversion="+bad) {
			t.Errorf("%q: %v", bad, err)
		}
		if _, err := Kind().New(context.Background(), source.Env{Dynamic: dyn, Config: source.Config{SkipperRouteGroupVersion: bad}}); err == nil {
			t.Errorf("New with %q: no error", bad)
		}
	}
}

// RouteGroups in manifest files (zonekeeper plan, --source=manifest) give the records the cluster source
// gives, --fqdn-template included.
func TestRouteGroupsFromManifests(t *testing.T) {
	doc := "apiVersion: zalando.org/v1\nkind: RouteGroup\nmetadata:\n  name: shop\n  namespace: apps\n" +
		"  annotations: {external-dns.alpha.kubernetes.io/ttl: \"30\"}\n" +
		"spec: {hosts: [shop.example.com], backends: [{name: shunt, type: shunt}]}\n" +
		"status: {loadBalancer: {routegroup: [{ip: 192.0.2.10}]}}\n---\n" +
		"apiVersion: zalando.org/v1\nkind: RouteGroup\nmetadata: {name: api}\n" +
		"spec: {backends: [{name: shunt, type: shunt}]}\n" +
		"status: {loadBalancer: {routegroup: [{hostname: lb.example.net}]}}\n"
	for _, c := range []struct {
		cfg  source.Config
		want []string
	}{
		{source.Config{FQDNTemplate: "{{.Name}}.tmpl.example.com"}, []string{"api.tmpl.example.com CNAME lb.example.net routegroup/default/api", "shop.example.com A 192.0.2.10 routegroup/apps/shop ttl=30"}},
		{source.Config{Namespace: "apps"}, []string{"shop.example.com A 192.0.2.10 routegroup/apps/shop ttl=30"}},
	} {
		got, problems := sourcetest.ManifestEndpoints(t, doc, Kind(), c.cfg)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%+v: %v, want %v (problems: %s)", c.cfg, got, c.want, sourcetest.Problems(problems))
		}
	}
}

func run(t *testing.T, env source.Env, cfg source.Config) (*source.CRDSource, []string, []endpoint.Problem) {
	t.Helper()
	src, got, problems := sourcetest.Endpoints(t, Kind(), env, cfg)
	return src.(*source.CRDSource), got, problems
}
