package openshift

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/source/openshift/openshifttest"
	"github.com/zonekeeper/zonekeeper/internal/source/sourcetest"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// admission is one status.ingress entry.
type admission = openshifttest.Entry

var route = openshifttest.Route

func run(t *testing.T, env source.Env, cfg source.Config) (*source.CRDSource, []string, []endpoint.Problem) {
	t.Helper()
	src, got, problems := sourcetest.Endpoints(t, Kind(), env, cfg)
	return src.(*source.CRDSource), got, problems
}

// Routes on a real API server with the CRD of OpenShift's API module: the admitting router's host and
// canonical hostname, --openshift-router-name, the target and hostname annotations, filters, the
// template and bad input.
func TestRoutes(t *testing.T) {
	def, ext := "router-default.apps.example.net", "router-ext.apps.example.net"
	_, dyn := sourcetest.StartCluster(t, testbed.InstallOpenShiftRoutes,
		route("default", "web", "web.example.com", []admission{{"web.example.com", "default", def, "True"}}, nil, "ttl", "60"),
		// The status host counts, not spec.host.
		route("default", "moved", "spec.example.com", []admission{{"status.example.com", "default", def, "True"}}, nil),
		route("default", "two", "two.example.com", []admission{
			{"two.example.com", "default", def, "False"},
			{"two-ext.example.com", "ext", ext, "True"},
			{"two-int.example.com", "int", "router-int.apps.example.net", "True"}}, nil),
		route("default", "pending", "pending.example.com", []admission{{"pending.example.com", "default", def, ""}}, nil),
		route("default", "nocanon", "nocanon.example.com", []admission{{"nocanon.example.com", "default", "", "True"}}, nil),
		route("default", "target", "target.example.com", []admission{{"target.example.com", "default", def, "True"}}, nil, "target", "192.0.2.9"),
		route("default", "annonly", "", nil, nil, "target", "192.0.2.10", "hostname", "annonly.example.com"),
		route("default", "bad", "bad.example.com", []admission{{"bad_name!.example.com", "default", def, "True"}}, nil,
			"hostname", "ok.example.com", "ttl", "later"),
		route("other", "labelled", "l.example.com", []admission{{"l.example.com", "ext", ext, "True"}}, map[string]string{"app": "edge"},
			"set-identifier", "blue", "aws-weight", "5"),
		route("other", "ctrl", "c.example.com", []admission{{"c.example.com", "default", def, "True"}}, nil, "controller", "someone-else"),
	)
	env := source.Env{Dynamic: dyn}
	_, got, problems := run(t, env, source.Config{})
	want := []string{
		"annonly.example.com A 192.0.2.10 route/default/annonly",
		"l.example.com CNAME router-ext.apps.example.net route/other/labelled set=blue aws/weight=5",
		"ok.example.com CNAME router-default.apps.example.net route/default/bad",
		"status.example.com CNAME router-default.apps.example.net route/default/moved",
		"target.example.com A 192.0.2.9 route/default/target",
		"two-ext.example.com CNAME router-ext.apps.example.net route/default/two",
		"web.example.com CNAME router-default.apps.example.net route/default/web ttl=60",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Routes:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, w := range []string{"status.ingress[0].host", "bad_name!.example.com", sourcetest.AnnotationPrefix + "ttl", "later"} {
		if ps := sourcetest.Problems(problems); !strings.Contains(ps, w) {
			t.Errorf("no problem names %q: %s", w, ps)
		}
	}
	src, got, _ := run(t, env, source.Config{OpenShiftRouterName: "int"})
	want = []string{
		"annonly.example.com A 192.0.2.10 route/default/annonly",
		"two-int.example.com CNAME router-int.apps.example.net route/default/two",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("--openshift-router-name=int: %v", got)
	}
	for _, kind := range []string{"Route", "route"} {
		obj, ok := src.LookupObject(kind, "default", "bad")
		if !ok || obj.GetObjectKind().GroupVersionKind() != (schema.GroupVersionKind{Group: "route.openshift.io", Version: "v1", Kind: "Route"}) {
			t.Errorf("LookupObject(%s): %v %v", kind, obj, ok)
		}
	}
	_, got, _ = run(t, env, source.Config{LabelFilter: "app=edge"})
	if !reflect.DeepEqual(got, []string{"l.example.com CNAME router-ext.apps.example.net route/other/labelled set=blue aws/weight=5"}) {
		t.Errorf("--label-filter: %v", got)
	}
	_, got, _ = run(t, env, source.Config{Namespace: "default", FQDNTemplate: "{{.Spec.To.Name}}.tmpl.example.com"})
	if w := "svc-pending.tmpl.example.com"; slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, w) }) {
		t.Errorf("--fqdn-template: a route without targets got %q: %v", w, got)
	}
	_, got, _ = run(t, env, source.Config{Namespace: "default", FQDNTemplate: "{{.Name}}.tmpl.example.com", CombineFQDNAndAnnotation: true, IgnoreHostnameAnnotation: true})
	for _, w := range []string{"web.tmpl.example.com CNAME router-default.apps.example.net route/default/web ttl=60", "web.example.com CNAME router-default.apps.example.net route/default/web ttl=60", "annonly.tmpl.example.com A 192.0.2.10 route/default/annonly"} {
		if !slices.Contains(got, w) {
			t.Errorf("--combine-fqdn-annotation: no %q in %v", w, got)
		}
	}
	if slices.Contains(got, "annonly.example.com A 192.0.2.10 route/default/annonly") {
		t.Errorf("--ignore-hostname-annotation: %v", got)
	}
}
