package istio

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/source/istio/istiotest"
	"github.com/zonekeeper/zonekeeper/internal/source/sourcetest"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

var ingressGW = map[string]string{"istio": "ingressgateway"}

// fixture: Services selected by Gateways (one, several, none), Gateways in two namespaces and
// VirtualServices binding to them in every way external-dns knows.
func fixture() []*unstructured.Unstructured {
	gw, vs := istiotest.Gateway, istiotest.VirtualService
	l := func(s ...string) []string { return s }
	return []*unstructured.Unstructured{
		istiotest.Service("istio-system", "ingress", ingressGW, nil, l("192.0.2.10", "lb.example.net")),
		istiotest.Service("istio-system", "ingress-v6", map[string]string{"istio": "ingressgateway", "rev": "2"}, nil, l("2001:db8::10")),
		istiotest.Service("istio-system", "internal", map[string]string{"istio": "internal"}, l("10.0.0.7"), l("192.0.2.99")),
		istiotest.Service("istio-system", "pending", map[string]string{"istio": "pending"}, nil, nil),

		gw("istio-system", "public", ingressGW, [][]string{{"public.example.com", "team-a/a-only.example.com"}, {"*/*.apps.example.com"}}, "ttl", "60"),
		gw("istio-system", "internal", map[string]string{"istio": "internal"}, [][]string{{"internal.example.com", "*"}}, "hostname", "int-alias.example.com"),
		gw("istio-system", "pending", map[string]string{"istio": "pending"}, [][]string{{"pending.example.com"}}),
		gw("istio-system", "nomatch", map[string]string{"istio": "none"}, [][]string{{"nomatch.example.com"}}),
		gw("istio-system", "targeted", ingressGW, [][]string{{"targeted.example.com"}}, "target", "203.0.113.1"),
		gw("istio-system", "via-ingress", ingressGW, [][]string{{"via-ingress.example.com"}}, "ingress", "default/web"),
		gw("istio-system", "bad", ingressGW, [][]string{{"bad_name!.example.com", "ok.example.com"}}, "ttl", "soon", "set-identifier", "blue", "aws-weight", "10"),
		gw("istio-system", "other-controller", ingressGW, [][]string{{"ctrl.example.com"}}, "controller", "someone-else"),
		gw("team-b", "local", ingressGW, [][]string{{"./*.b.example.com", "team-c/c.example.com"}}),

		vs("team-a", "bound", l("a.apps.example.com"), l("istio-system/public"), nil, "ttl", "30"),
		vs("team-a", "ns-host", l("a-only.example.com", "x/y/z"), l("istio-system/public"), nil),
		vs("team-c", "ns-host", l("a-only.example.com"), l("istio-system/public"), nil),
		vs("team-a", "mesh", l("mesh.apps.example.com"), l("mesh"), nil),
		vs("team-a", "unbound", l("x.other.example.com"), l("istio-system/public"), nil),
		vs("team-a", "annotated", l("t.other.example.com"), l("mesh"), nil, "target", "lb2.example.net"),
		vs("team-a", "refs", l("r.apps.example.com"), l("a/b/c", "missing", "istio-system/public", "istio-system/public"), nil),
		vs("team-a", "private", l("p.apps.example.com"), l("istio-system/public"), l(".")),
		vs("team-a", "hostname", l("*"), l("istio-system/public"), nil, "hostname", "h.apps.example.com,h.nowhere.example.com"),
		vs("team-b", "local", l("one.b.example.com"), l("local"), nil),
		vs("team-a", "foreign", l("two.b.example.com"), l("team-b/local"), nil),
		vs("team-c", "gw-ns", l("c.example.com"), l("team-b/local"), nil),
		vs("team-a", "tmpl", nil, l("istio-system/public"), nil),
	}
}

// Gateways and VirtualServices on a real API server with the CRDs of Istio's own module.
func TestIstioSources(t *testing.T) {
	api, _, dyn := sourcetest.StartClusterServer(t, testbed.InstallIstio, fixture()...)
	env := source.Env{Kube: api.Kube(t), Dynamic: dyn}

	t.Run("gateway", func(t *testing.T) {
		src, got, problems := sourcetest.Endpoints(t, GatewayKind(), env, source.Config{})
		want := []string{
			"*.apps.example.com A 192.0.2.10 gateway/istio-system/public ttl=60",
			"*.apps.example.com AAAA 2001:db8::10 gateway/istio-system/public ttl=60",
			"*.apps.example.com CNAME lb.example.net gateway/istio-system/public ttl=60",
			"*.b.example.com A 192.0.2.10 gateway/team-b/local",
			"*.b.example.com AAAA 2001:db8::10 gateway/team-b/local",
			"*.b.example.com CNAME lb.example.net gateway/team-b/local",
			"a-only.example.com A 192.0.2.10 gateway/istio-system/public ttl=60",
			"a-only.example.com AAAA 2001:db8::10 gateway/istio-system/public ttl=60",
			"a-only.example.com CNAME lb.example.net gateway/istio-system/public ttl=60",
			"c.example.com A 192.0.2.10 gateway/team-b/local",
			"c.example.com AAAA 2001:db8::10 gateway/team-b/local",
			"c.example.com CNAME lb.example.net gateway/team-b/local",
			"int-alias.example.com A 10.0.0.7 gateway/istio-system/internal",
			"internal.example.com A 10.0.0.7 gateway/istio-system/internal",
			"ok.example.com A 192.0.2.10 gateway/istio-system/bad set=blue aws/weight=10",
			"ok.example.com AAAA 2001:db8::10 gateway/istio-system/bad set=blue aws/weight=10",
			"ok.example.com CNAME lb.example.net gateway/istio-system/bad set=blue aws/weight=10",
			"public.example.com A 192.0.2.10 gateway/istio-system/public ttl=60",
			"public.example.com AAAA 2001:db8::10 gateway/istio-system/public ttl=60",
			"public.example.com CNAME lb.example.net gateway/istio-system/public ttl=60",
			"targeted.example.com A 203.0.113.1 gateway/istio-system/targeted",
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Gateways:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		ps := sourcetest.Problems(problems)
		for _, w := range []string{"spec.servers[0].hosts[0]", "bad_name!.example.com", sourcetest.AnnotationPrefix + "ttl", "soon",
			sourcetest.AnnotationPrefix + "ingress", "default/web"} {
			if !strings.Contains(ps, w) {
				t.Errorf("no problem names %q:\n%s", w, ps)
			}
		}
		l := src.(source.ObjectLookup)
		if obj, ok := l.LookupObject("gateway", "istio-system", "bad"); !ok || obj.GetObjectKind().GroupVersionKind() != (schema.GroupVersionKind{Group: group, Version: "v1", Kind: "Gateway"}) {
			t.Errorf("LookupObject(gateway): %v %v", obj, ok)
		}
		if _, ok := l.LookupObject("virtualservice", "team-a", "bound"); ok {
			t.Error("istio-gateway looks up VirtualServices")
		}
	})

	t.Run("gateway filters and template", func(t *testing.T) {
		// Under --namespace only the Services of that namespace are read: team-b has none, so its
		// Gateway has no targets (as in external-dns).
		if _, got, _ := sourcetest.Endpoints(t, GatewayKind(), env, source.Config{Namespace: "team-b"}); len(got) != 0 {
			t.Errorf("--namespace=team-b: %v", got)
		}
		_, got, _ := sourcetest.Endpoints(t, GatewayKind(), env, source.Config{
			FQDNTemplate: "{{.Name}}.{{.Namespace}}.tmpl.example.com", CombineFQDNAndAnnotation: true})
		for _, w := range []string{"*.b.example.com A 192.0.2.10 gateway/team-b/local", "local.team-b.tmpl.example.com A 192.0.2.10 gateway/team-b/local",
			"targeted.istio-system.tmpl.example.com A 203.0.113.1 gateway/istio-system/targeted"} {
			if !slices.Contains(got, w) {
				t.Errorf("--combine-fqdn-annotation: no %q in %v", w, got)
			}
		}
		if slices.ContainsFunc(got, func(s string) bool {
			return strings.HasPrefix(s, "nomatch.") || strings.HasPrefix(s, "other-controller.")
		}) {
			t.Errorf("template names for a Gateway without targets or of another controller: %v", got)
		}
		_, got, _ = sourcetest.Endpoints(t, GatewayKind(), env, source.Config{AnnotationFilter: sourcetest.AnnotationPrefix + "hostname",
			FQDNTemplate: "{{.Name}}.tmpl.example.com", IgnoreHostnameAnnotation: true})
		if want := []string{"internal.example.com A 10.0.0.7 gateway/istio-system/internal"}; !reflect.DeepEqual(got, want) {
			t.Errorf("--annotation-filter --ignore-hostname-annotation: %v, want %v", got, want)
		}
		_, got, _ = sourcetest.Endpoints(t, GatewayKind(), env, source.Config{FQDNTemplate: "{{.Name}}.tmpl.example.com"})
		if !slices.Contains(got, "targeted.example.com A 203.0.113.1 gateway/istio-system/targeted") || slices.Contains(got, "targeted.tmpl.example.com A 203.0.113.1 gateway/istio-system/targeted") {
			t.Errorf("--fqdn-template applies only to Gateways without names: %v", got)
		}
	})

	t.Run("virtualservice", func(t *testing.T) {
		src, got, problems := sourcetest.Endpoints(t, VirtualServiceKind(), env, source.Config{})
		pub := func(name, res string, extra string) []string {
			return []string{name + " A 192.0.2.10 " + res + extra, name + " AAAA 2001:db8::10 " + res + extra, name + " CNAME lb.example.net " + res + extra}
		}
		var want []string
		want = append(want, pub("a.apps.example.com", "virtualservice/team-a/bound", " ttl=30")...)
		want = append(want, pub("a-only.example.com", "virtualservice/team-a/ns-host", "")...)
		want = append(want, pub("c.example.com", "virtualservice/team-c/gw-ns", "")...)
		want = append(want, pub("h.apps.example.com", "virtualservice/team-a/hostname", "")...)
		want = append(want, pub("one.b.example.com", "virtualservice/team-b/local", "")...)
		want = append(want, pub("r.apps.example.com", "virtualservice/team-a/refs", "")...)
		want = append(want, "t.other.example.com CNAME lb2.example.net virtualservice/team-a/annotated")
		slices.Sort(want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("VirtualServices:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		ps := sourcetest.Problems(problems)
		for _, w := range []string{"spec.gateways[0]", "a/b/c", "spec.gateways[1]", "missing", "spec.hosts[1]", "x/y/z"} {
			if !strings.Contains(ps, w) {
				t.Errorf("no problem names %q:\n%s", w, ps)
			}
		}
		l := src.(source.ObjectLookup)
		for _, k := range []string{"VirtualService", "virtualservice"} {
			if _, ok := l.LookupObject(k, "team-a", "refs"); !ok {
				t.Errorf("LookupObject(%s) failed", k)
			}
		}
	})

	t.Run("virtualservice template", func(t *testing.T) {
		_, got, _ := sourcetest.Endpoints(t, VirtualServiceKind(), env, source.Config{Namespace: "team-a",
			FQDNTemplate: "{{.Name}}.apps.example.com", LabelFilter: ""})
		for _, w := range []string{"tmpl.apps.example.com", "unbound.apps.example.com", "annotated.apps.example.com"} {
			found := false
			for _, g := range got {
				found = found || strings.HasPrefix(g, w+" ")
			}
			// Under --namespace=team-a the Gateways of istio-system are not read: no targets at all.
			if found {
				t.Errorf("--namespace=team-a: %s published without its Gateway: %v", w, got)
			}
		}
		_, got, _ = sourcetest.Endpoints(t, VirtualServiceKind(), env, source.Config{FQDNTemplate: "{{.Name}}.apps.example.com"})
		for _, w := range []string{"tmpl.apps.example.com A 192.0.2.10 virtualservice/team-a/tmpl", "unbound.apps.example.com A 192.0.2.10 virtualservice/team-a/unbound"} {
			if !slices.Contains(got, w) {
				t.Errorf("--fqdn-template: no %q in %v", w, got)
			}
		}
		if slices.Contains(got, "bound.apps.example.com A 192.0.2.10 virtualservice/team-a/bound") {
			t.Errorf("--fqdn-template used for a VirtualService with records: %v", got)
		}
	})

	// Issue 10 item 6: the same objects in a manifest (zonekeeper plan, --source=manifest) give the same
	// records as on the cluster, kind by kind, with every --namespace.
	t.Run("manifest", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "istio.yaml")
		var docs []byte
		for _, u := range fixture() {
			js, err := u.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			docs = append(append(docs, js...), "\n---\n"...)
		}
		if err := os.WriteFile(path, docs, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, kind := range []source.Kind{GatewayKind(), VirtualServiceKind()} {
			for _, cfg := range []source.Config{{}, {Namespace: "team-a"}, {FQDNTemplate: "{{.Name}}.{{.Kind}}.apps.example.com"}} {
				_, live, liveProblems := sourcetest.Endpoints(t, kind, env, cfg)
				m, err := source.NewManifestWith(path, cfg, []source.Kind{kind})
				if err != nil {
					t.Fatal(err)
				}
				res, err := m.Endpoints(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				// The manifest's Services are published by the service kind too (by the template here).
				got := slices.DeleteFunc(sourcetest.Describe(res.Endpoints), func(l string) bool { return strings.Contains(l, " service/") })
				if !reflect.DeepEqual(got, live) {
					t.Errorf("%s %+v from a manifest:\n%s\nfrom the cluster:\n%s", kind.Name, cfg, strings.Join(got, "\n"), strings.Join(live, "\n"))
				}
				if len(live) > 0 && len(liveProblems) > 0 && !strings.Contains(sourcetest.Problems(res.Problems), liveProblems[0].Field) {
					t.Errorf("%s: the manifest's problems lack %q:\n%s", kind.Name, liveProblems[0].Field, sourcetest.Problems(res.Problems))
				}
			}
		}
	})
}
