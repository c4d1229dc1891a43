package contour

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/source/sourcetest"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// proxy builds an HTTPProxy with fqdn ("" for none), load balancer status entries ("ip" or "hostname"
// values) and annotations kv.
func proxy(ns, name, fqdn string, lb []string, kv ...string) *unstructured.Unstructured {
	spec := map[string]any{}
	if fqdn != "" {
		spec["virtualhost"] = map[string]any{"fqdn": fqdn}
	}
	var status map[string]any
	if len(lb) > 0 {
		var ingress []any
		for _, a := range lb {
			key := "hostname"
			if strings.Trim(a, "0123456789.:abcdef") == "" && strings.ContainsAny(a, ".:") && !strings.Contains(a, "example") {
				key = "ip"
			}
			ingress = append(ingress, map[string]any{key: a})
		}
		status = map[string]any{"loadBalancer": map[string]any{"ingress": ingress}}
	}
	return sourcetest.Object("projectcontour.io/v1", "HTTPProxy", ns, name, sourcetest.Annotations(kv...), spec, status)
}

// HTTPProxies on a real API server with the CRD of Contour's own module: virtualhost.fqdn and the
// hostname annotation, the status load balancer or the target annotation, filters, the template and
// bad input.
func TestHTTPProxies(t *testing.T) {
	_, dyn := sourcetest.StartCluster(t, testbed.InstallContour,
		proxy("default", "web", "web.example.com", []string{"192.0.2.1", "2001:db8::1"}, "ttl", "60"),
		proxy("default", "lbhost", "lbhost.example.com", []string{"lb.example.net"}, "hostname", "alias.example.com"),
		proxy("default", "target", "target.example.com", []string{"192.0.2.3"}, "target", "203.0.113.3"),
		proxy("default", "nostatus", "nostatus.example.com", nil),
		proxy("default", "child", "", []string{"192.0.2.5"}),
		proxy("default", "bad", "*.wild.example.com", []string{"192.0.2.6"}, "hostname", "ok.example.com,bad_name!.example.com", "ttl", "soon"),
		proxy("other", "ctrl", "ctrl.example.com", []string{"192.0.2.7"}, "controller", "someone-else"),
		proxy("other", "weighted", "w.example.com", []string{"192.0.2.8"}, "set-identifier", "blue", "aws-weight", "20"),
	)
	env := source.Env{Dynamic: dyn}
	all := []string{
		"*.wild.example.com A 192.0.2.6 HTTPProxy/default/bad",
		"alias.example.com CNAME lb.example.net HTTPProxy/default/lbhost",
		"lbhost.example.com CNAME lb.example.net HTTPProxy/default/lbhost",
		"ok.example.com A 192.0.2.6 HTTPProxy/default/bad",
		"target.example.com A 203.0.113.3 HTTPProxy/default/target",
		"w.example.com A 192.0.2.8 HTTPProxy/other/weighted set=blue aws/weight=20",
		"web.example.com A 192.0.2.1 HTTPProxy/default/web ttl=60",
		"web.example.com AAAA 2001:db8::1 HTTPProxy/default/web ttl=60",
	}
	src, got, problems := run(t, env, source.Config{})
	if !reflect.DeepEqual(got, all) {
		t.Errorf("HTTPProxies:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(all, "\n"))
	}
	for _, want := range []string{sourcetest.AnnotationPrefix + "hostname", "bad_name!.example.com", sourcetest.AnnotationPrefix + "ttl", "soon"} {
		if ps := sourcetest.Problems(problems); !strings.Contains(ps, want) {
			t.Errorf("no problem names %q: %s", want, ps)
		}
	}
	for _, kind := range []string{"HTTPProxy", "httpproxy"} {
		obj, ok := src.LookupObject(kind, "default", "bad")
		if !ok || obj.GetObjectKind().GroupVersionKind() != (schema.GroupVersionKind{Group: "projectcontour.io", Version: "v1", Kind: "HTTPProxy"}) {
			t.Errorf("LookupObject(%s): %v %v", kind, obj, ok)
		}
	}
	_, got, _ = run(t, env, source.Config{Namespace: "default", FQDNTemplate: "{{.Name}}.{{.Kind}}.tmpl.example.com"})
	if want := "child.httpproxy.tmpl.example.com A 192.0.2.5 HTTPProxy/default/child"; !slices.Contains(got, want) || slices.Contains(got, "web.httpproxy.tmpl.example.com A 192.0.2.1 HTTPProxy/default/web ttl=60") {
		t.Errorf("--fqdn-template: want %q (and no template name for proxies with names) in %v", want, got)
	}
	_, got, _ = run(t, env, source.Config{Namespace: "default", FQDNTemplate: "{{.Spec.VirtualHost.Fqdn}}x.example.org", CombineFQDNAndAnnotation: true, IgnoreHostnameAnnotation: true})
	for _, want := range []string{"web.example.comx.example.org A 192.0.2.1 HTTPProxy/default/web ttl=60", "web.example.com A 192.0.2.1 HTTPProxy/default/web ttl=60"} {
		if !slices.Contains(got, want) {
			t.Errorf("--combine-fqdn-annotation: no %q in %v", want, got)
		}
	}
	if slices.Contains(got, "alias.example.com CNAME lb.example.net HTTPProxy/default/lbhost") {
		t.Errorf("--ignore-hostname-annotation: %v", got)
	}
	_, got, _ = run(t, env, source.Config{AnnotationFilter: sourcetest.AnnotationPrefix + "set-identifier"})
	if !reflect.DeepEqual(got, []string{"w.example.com A 192.0.2.8 HTTPProxy/other/weighted set=blue aws/weight=20"}) {
		t.Errorf("--annotation-filter: %v", got)
	}
}

func run(t *testing.T, env source.Env, cfg source.Config) (*source.CRDSource, []string, []endpoint.Problem) {
	t.Helper()
	src, got, problems := sourcetest.Endpoints(t, Kind(), env, cfg)
	return src.(*source.CRDSource), got, problems
}
