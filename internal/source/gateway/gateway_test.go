package gateway

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	gwclient "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/source"
	gt "github.com/zonekeeper/zonekeeper/internal/source/gateway/gatewaytest"
	"github.com/zonekeeper/zonekeeper/internal/source/sourcetest"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

const (
	yes = metav1.ConditionTrue
	no  = metav1.ConditionFalse
)

type cluster struct {
	api     *testbed.KubeAPIServer
	clients gt.Clients
}

func startCluster(t *testing.T) *cluster {
	t.Helper()
	api, kube, dyn := sourcetest.StartClusterServer(t, testbed.InstallGatewayAPI)
	gw, err := gwclient.NewForConfig(api.Config)
	if err != nil {
		t.Fatal(err)
	}
	return &cluster{api: api, clients: gt.Clients{Kube: kube, Gateway: gw, Dynamic: dyn}}
}

// run creates the objects, builds the kind's source with cfg, and returns its endpoints (one line
// each, sorted) and problems; the objects are deleted afterwards.
func (c *cluster) run(t *testing.T, k source.Kind, cfg source.Config, nss []gt.Namespace, gws []gt.Gateway, routes []gt.Route) ([]string, []endpoint.Problem) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := c.clients.Create(ctx, nss, gws, routes); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := c.clients.Delete(context.Background(), gws, routes); err != nil {
			t.Fatal(err)
		}
	}()
	src, err := k.New(ctx, source.Env{Kube: c.api.Kube(t), Dynamic: c.clients.Dynamic, REST: c.api.Config, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	res, err := src.Endpoints(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return describe(res.Endpoints), res.Problems
}

func describe(eps []*endpoint.Endpoint) []string {
	var out []string
	for _, e := range eps {
		s := fmt.Sprintf("%s %s %s %s", e.DNSName, e.RecordType, strings.Join(e.Targets, ","), e.Labels[endpoint.ResourceLabelKey])
		if e.RecordTTL != 0 {
			s += fmt.Sprintf(" ttl=%d", e.RecordTTL)
		}
		if e.SetIdentifier != "" {
			s += " set=" + e.SetIdentifier
		}
		for _, p := range e.ProviderSpecific {
			s += " " + p.Name + "=" + p.Value
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// setGatewayAddress replaces the first of a Gateway's status addresses, as its controller would.
func (c *cluster) setGatewayAddress(t *testing.T, namespace, name, addr string) {
	t.Helper()
	ctx := context.Background()
	gws := c.clients.Gateway.GatewayV1().Gateways(namespace)
	g, err := gws.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	g.Status.Addresses[0].Value = addr
	if _, err := gws.UpdateStatus(ctx, g, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func gw(ns, name string, addrs []string, ls ...gt.Listener) gt.Gateway {
	return gt.Gateway{Namespace: ns, Name: name, Addresses: addrs, Listeners: ls}
}

func lis(name, host string) gt.Listener { return gt.Listener{Name: name, Hostname: host} }

func http(ns, name string, hosts []string, parents ...gt.Parent) gt.Route {
	return gt.Route{Kind: "HTTPRoute", Namespace: ns, Name: name, Hostnames: hosts, Parents: parents}
}

func acc(name string) gt.Parent { return gt.Parent{Name: name, Accepted: yes} }

func ann(r gt.Route, kv ...string) gt.Route {
	r.Annotations = map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		r.Annotations["external-dns.alpha.kubernetes.io/"+kv[i]] = kv[i+1]
	}
	return r
}

func expect(t *testing.T, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("endpoints:\n got %q\nwant %q", got, want)
	}
}

func expectProblems(t *testing.T, got []endpoint.Problem, want ...string) {
	t.Helper()
	var lines []string
	for _, p := range got {
		lines = append(lines, fmt.Sprintf("%s %s/%s %s %q: %s", p.Object.Kind, p.Object.Namespace, p.Object.Name, p.Field, p.Value, p.Reason))
	}
	if len(lines) != len(want) {
		t.Errorf("problems: got %q, want %d matching %q", lines, len(want), want)
		return
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) {
			t.Errorf("problem %d: %q does not contain %q", i, lines[i], w)
		}
	}
}

// TestGatewayRules checks each rule of the Gateway API sources on a real API server with the
// Gateway API CRDs installed.
func TestGatewayRules(t *testing.T) {
	c := startCluster(t)
	httpKind := HTTPRouteKind()
	nsA := []gt.Namespace{{Name: "a"}, {Name: "b", Labels: map[string]string{"env": "prod"}}, {Name: "c"}}
	addr := []string{"192.0.2.1"}

	t.Run("hostnames meet listener hostnames", func(t *testing.T) {
		got, problems := c.run(t, httpKind, source.Config{}, nsA,
			[]gt.Gateway{gw("a", "gw", addr, lis("any", ""), lis("wild", "*.example.com"), lis("exact", "exact.example.org"))},
			[]gt.Route{
				http("a", "plain", []string{"plain.example.net"}, acc("gw")),
				http("a", "wild", []string{"w.example.com", "example.com", "*.sub.example.com"}, gt.Parent{Name: "gw", Section: "wild", Accepted: yes}),
				http("a", "nohost", nil, acc("gw")),
			})
		expect(t, got, []string{
			"*.example.com A 192.0.2.1 httproute/a/nohost",
			"*.sub.example.com A 192.0.2.1 httproute/a/wild",
			"exact.example.org A 192.0.2.1 httproute/a/nohost",
			"plain.example.net A 192.0.2.1 httproute/a/plain",
			"w.example.com A 192.0.2.1 httproute/a/wild",
		})
		expectProblems(t, problems)
	})

	t.Run("sectionName and port select listeners", func(t *testing.T) {
		g := gw("a", "gw", addr, gt.Listener{Name: "p80", Hostname: "p80.example.com", Port: 80},
			gt.Listener{Name: "p8080", Hostname: "p8080.example.com", Port: 8080})
		got, _ := c.run(t, httpKind, source.Config{}, nsA, []gt.Gateway{g}, []gt.Route{
			http("a", "section", nil, gt.Parent{Name: "gw", Section: "p80", Accepted: yes}),
			http("a", "port", nil, gt.Parent{Name: "gw", Port: 8080, Accepted: yes}),
			http("a", "nosuchsection", nil, gt.Parent{Name: "gw", Section: "nope", Accepted: yes}),
		})
		expect(t, got, []string{"p80.example.com A 192.0.2.1 httproute/a/section", "p8080.example.com A 192.0.2.1 httproute/a/port"})
	})

	t.Run("only parents that accepted the route", func(t *testing.T) {
		got, _ := c.run(t, httpKind, source.Config{}, nsA,
			[]gt.Gateway{gw("a", "gw", addr, lis("l", "")), gw("a", "gw2", []string{"192.0.2.2"}, lis("l", ""))},
			[]gt.Route{
				http("a", "refused", []string{"refused.example.com"}, gt.Parent{Name: "gw", Accepted: no}),
				http("a", "nostatus", []string{"nostatus.example.com"}, gt.Parent{Name: "gw"}),
				http("a", "statusonly", []string{"statusonly.example.com"}, gt.Parent{Name: "gw", Accepted: yes, StatusOnly: true}),
				http("a", "one-of-two", []string{"two.example.com"}, gt.Parent{Name: "gw", Accepted: no}, acc("gw2")),
				http("a", "missing-gateway", []string{"missing.example.com"}, acc("nope")),
			})
		expect(t, got, []string{"two.example.com A 192.0.2.2 httproute/a/one-of-two"})
	})

	t.Run("allowedRoutes namespaces and kinds", func(t *testing.T) {
		g := gw("a", "gw", addr,
			gt.Listener{Name: "same", Hostname: "*.same.example.com"},
			gt.Listener{Name: "all", Hostname: "*.all.example.com", From: gwv1.NamespacesFromAll},
			gt.Listener{Name: "sel", Hostname: "*.sel.example.com", From: gwv1.NamespacesFromSelector, Selector: map[string]string{"env": "prod"}},
			gt.Listener{Name: "grpc", Hostname: "*.grpc.example.com", From: gwv1.NamespacesFromAll, Kinds: []string{"GRPCRoute"}})
		ref := func(section string) gt.Parent {
			return gt.Parent{Namespace: "a", Name: "gw", Section: section, Accepted: yes}
		}
		got, _ := c.run(t, httpKind, source.Config{}, nsA, []gt.Gateway{g}, []gt.Route{
			http("a", "r", []string{"a.same.example.com", "a.all.example.com", "a.sel.example.com", "a.grpc.example.com"}, ref("")),
			http("b", "r", []string{"b.same.example.com", "b.all.example.com", "b.sel.example.com"}, ref("")),
			http("c", "r", []string{"c.same.example.com", "c.all.example.com", "c.sel.example.com"}, ref("")),
		})
		expect(t, got, []string{
			"a.all.example.com A 192.0.2.1 httproute/a/r",
			"a.same.example.com A 192.0.2.1 httproute/a/r",
			"b.all.example.com A 192.0.2.1 httproute/b/r",
			"b.sel.example.com A 192.0.2.1 httproute/b/r",
			"c.all.example.com A 192.0.2.1 httproute/c/r",
		})
	})

	t.Run("targets from status addresses or the Gateway target annotation", func(t *testing.T) {
		withTarget := gw("a", "override", addr, lis("l", ""))
		withTarget.Annotations = map[string]string{"external-dns.alpha.kubernetes.io/target": "lb.example.net,198.51.100.9"}
		got, problems := c.run(t, httpKind, source.Config{}, nsA, []gt.Gateway{
			gw("a", "mixed", []string{"192.0.2.1", "2001:db8::1", "lb.example.org"}, lis("l", "")),
			withTarget,
			gw("a", "bad", []string{"192.0.2.7", "named:not_a_host!"}, lis("l", "")),
		}, []gt.Route{
			http("a", "mixed", []string{"mixed.example.com"}, acc("mixed")),
			http("a", "override", []string{"override.example.com"}, acc("override")),
			http("a", "bad", []string{"bad.example.com"}, acc("bad")),
		})
		expect(t, got, []string{
			"bad.example.com A 192.0.2.7 httproute/a/bad",
			"mixed.example.com A 192.0.2.1 httproute/a/mixed",
			"mixed.example.com AAAA 2001:db8::1 httproute/a/mixed",
			"mixed.example.com CNAME lb.example.org httproute/a/mixed",
			"override.example.com A 198.51.100.9 httproute/a/override",
			"override.example.com CNAME lb.example.net httproute/a/override",
		})
		expectProblems(t, problems, `Gateway a/bad status.addresses[1].value "not_a_host!"`)
	})

	t.Run("route annotations", func(t *testing.T) {
		got, problems := c.run(t, httpKind, source.Config{}, nsA,
			[]gt.Gateway{gw("a", "gw", addr, lis("any", ""), lis("w", "*.example.com"))},
			[]gt.Route{
				ann(http("a", "meta", []string{"meta.example.com"}, acc("gw")), "ttl", "300", "set-identifier", "blue", "aws-weight", "10"),
				ann(http("a", "badttl", []string{"badttl.example.com"}, acc("gw")), "ttl", "soon", "target", "203.0.113.1"),
				ann(http("a", "hostann", []string{"spec.example.com"}, gt.Parent{Name: "gw", Section: "w", Accepted: yes}),
					"hostname", "ann.example.com,ann.example.org,bad_name.example.com"),
			})
		expect(t, got, []string{
			"ann.example.com A 192.0.2.1 httproute/a/hostann",
			"badttl.example.com A 192.0.2.1 httproute/a/badttl",
			"meta.example.com A 192.0.2.1 httproute/a/meta ttl=300 set=blue aws/weight=10",
			"spec.example.com A 192.0.2.1 httproute/a/hostann",
		})
		expectProblems(t, problems,
			`HTTPRoute a/badttl metadata.annotations[external-dns.alpha.kubernetes.io/target] "203.0.113.1": not read on routes`,
			`HTTPRoute a/badttl metadata.annotations[external-dns.alpha.kubernetes.io/ttl] "soon"`,
			`HTTPRoute a/hostann metadata.annotations[external-dns.alpha.kubernetes.io/hostname] "bad_name.example.com"`,
			`HTTPRoute a/hostann metadata.annotations[external-dns.alpha.kubernetes.io/hostname] "ann.example.org": matches no hostname of the listeners the route is attached to (*.example.com): not published`)
	})

	t.Run("gateway-hostname-source", func(t *testing.T) {
		got, problems := c.run(t, httpKind, source.Config{}, nsA,
			[]gt.Gateway{gw("a", "gw", addr, lis("any", ""))},
			[]gt.Route{
				ann(http("a", "annonly", []string{"spec1.example.com"}, acc("gw")), "gateway-hostname-source", "annotation-only", "hostname", "ann1.example.com"),
				ann(http("a", "defonly", []string{"spec2.example.com"}, acc("gw")), "gateway-hostname-source", "defined-hosts-only", "hostname", "ann2.example.com"),
				ann(http("a", "invalid", []string{"spec3.example.com"}, acc("gw")), "gateway-hostname-source", "both", "hostname", "ann3.example.com"),
			})
		expect(t, got, []string{
			"ann1.example.com A 192.0.2.1 httproute/a/annonly",
			"ann3.example.com A 192.0.2.1 httproute/a/invalid",
			"spec2.example.com A 192.0.2.1 httproute/a/defonly",
			"spec3.example.com A 192.0.2.1 httproute/a/invalid",
		})
		expectProblems(t, problems,
			`HTTPRoute a/defonly metadata.annotations[external-dns.alpha.kubernetes.io/hostname] "ann2.example.com": not read: the route's gateway-hostname-source annotation is defined-hosts-only`,
			`HTTPRoute a/invalid metadata.annotations[external-dns.alpha.kubernetes.io/gateway-hostname-source] "both"`)
	})

	t.Run("gateway flags", func(t *testing.T) {
		g1 := gw("a", "one", []string{"192.0.2.1"}, gt.Listener{Name: "l", From: gwv1.NamespacesFromAll})
		g1.Labels = map[string]string{"team": "x"}
		g2 := gw("b", "two", []string{"192.0.2.2"}, gt.Listener{Name: "l", From: gwv1.NamespacesFromAll})
		g3 := gw("b", "one", []string{"192.0.2.3"}, gt.Listener{Name: "l", From: gwv1.NamespacesFromAll})
		g3.Labels = map[string]string{"team": "y"}
		routes := []gt.Route{http("c", "r", []string{"r.example.com"},
			gt.Parent{Namespace: "a", Name: "one", Accepted: yes},
			gt.Parent{Namespace: "b", Name: "two", Accepted: yes},
			gt.Parent{Namespace: "b", Name: "one", Accepted: yes})}
		for _, tc := range []struct {
			cfg  source.Config
			want string
		}{
			{source.Config{}, "192.0.2.1,192.0.2.2,192.0.2.3"},
			{source.Config{GatewayName: "one"}, "192.0.2.1,192.0.2.3"},
			{source.Config{GatewayNamespace: "b"}, "192.0.2.2,192.0.2.3"},
			{source.Config{GatewayLabelFilter: "team=x"}, "192.0.2.1"},
			{source.Config{GatewayName: "one", GatewayNamespace: "b"}, "192.0.2.3"},
		} {
			got, _ := c.run(t, httpKind, tc.cfg, nsA, []gt.Gateway{g1, g2, g3}, routes)
			expect(t, got, []string{"r.example.com A " + tc.want + " httproute/c/r"})
		}
	})

	t.Run("route filters", func(t *testing.T) {
		g := gw("a", "gw", addr, gt.Listener{Name: "l", From: gwv1.NamespacesFromAll})
		p := gt.Parent{Namespace: "a", Name: "gw", Accepted: yes}
		labelled := http("b", "labelled", []string{"labelled.example.com"}, p)
		labelled.Labels = map[string]string{"dns": "public"}
		routes := []gt.Route{
			labelled,
			ann(http("b", "annotated", []string{"annotated.example.com"}, p), "controller", "dns-controller"),
			ann(http("c", "other-controller", []string{"other.example.com"}, p), "controller", "someone-else"),
			http("c", "plain", []string{"plain.example.com"}, p),
		}
		for _, tc := range []struct {
			cfg  source.Config
			want []string
		}{
			{source.Config{}, []string{"annotated.example.com A 192.0.2.1 httproute/b/annotated", "labelled.example.com A 192.0.2.1 httproute/b/labelled", "plain.example.com A 192.0.2.1 httproute/c/plain"}},
			{source.Config{Namespace: "c"}, []string{"plain.example.com A 192.0.2.1 httproute/c/plain"}},
			{source.Config{LabelFilter: "dns=public"}, []string{"labelled.example.com A 192.0.2.1 httproute/b/labelled"}},
			{source.Config{AnnotationFilter: "external-dns.alpha.kubernetes.io/controller=dns-controller"}, []string{"annotated.example.com A 192.0.2.1 httproute/b/annotated"}},
		} {
			got, _ := c.run(t, httpKind, tc.cfg, nsA, []gt.Gateway{g}, routes)
			expect(t, got, tc.want)
		}
	})

	t.Run("fqdn-template and hostname annotation flags", func(t *testing.T) {
		g := gw("a", "gw", addr, lis("l", ""))
		routes := []gt.Route{
			ann(http("a", "nohost", nil, acc("gw")), "hostname", "ann.example.com"),
			http("a", "withhost", []string{"spec.example.com"}, acc("gw")),
		}
		tmpl := "{{.Name}}.{{.Kind}}.tmpl.example.com"
		for _, tc := range []struct {
			cfg  source.Config
			want []string
		}{
			{source.Config{FQDNTemplate: tmpl}, []string{"ann.example.com A 192.0.2.1 httproute/a/nohost", "nohost.httproute.tmpl.example.com A 192.0.2.1 httproute/a/nohost", "spec.example.com A 192.0.2.1 httproute/a/withhost"}},
			{source.Config{FQDNTemplate: tmpl, CombineFQDNAndAnnotation: true}, []string{"ann.example.com A 192.0.2.1 httproute/a/nohost", "nohost.httproute.tmpl.example.com A 192.0.2.1 httproute/a/nohost", "spec.example.com A 192.0.2.1 httproute/a/withhost", "withhost.httproute.tmpl.example.com A 192.0.2.1 httproute/a/withhost"}},
			{source.Config{FQDNTemplate: tmpl, IgnoreHostnameAnnotation: true}, []string{"nohost.httproute.tmpl.example.com A 192.0.2.1 httproute/a/nohost", "spec.example.com A 192.0.2.1 httproute/a/withhost"}},
		} {
			got, _ := c.run(t, httpKind, tc.cfg, nsA, []gt.Gateway{g}, routes)
			expect(t, got, tc.want)
		}
	})

	t.Run("routes with one name are merged", func(t *testing.T) {
		got, _ := c.run(t, httpKind, source.Config{}, nsA,
			[]gt.Gateway{gw("a", "gw1", []string{"192.0.2.1"}, lis("l", "")), gw("a", "gw2", []string{"192.0.2.2"}, lis("l", ""))},
			[]gt.Route{http("a", "r1", []string{"same.example.com"}, acc("gw1")), http("a", "r2", []string{"same.example.com"}, acc("gw2"))})
		expect(t, got, []string{"same.example.com A 192.0.2.1,192.0.2.2 httproute/a/r1"})
	})

	t.Run("each kind attaches to its protocols", func(t *testing.T) {
		g := gw("a", "gw", addr,
			gt.Listener{Name: "http", Hostname: "*.http.example.com", Protocol: gwv1.HTTPProtocolType, Port: 80},
			gt.Listener{Name: "https", Hostname: "*.https.example.com", Protocol: gwv1.HTTPSProtocolType, Port: 443},
			gt.Listener{Name: "tls", Hostname: "*.tls.example.com", Protocol: gwv1.TLSProtocolType, Port: 8443},
			gt.Listener{Name: "tcp", Protocol: gwv1.TCPProtocolType, Port: 9000},
			gt.Listener{Name: "udp", Protocol: gwv1.UDPProtocolType, Port: 9001})
		hosts := []string{"x.http.example.com", "x.https.example.com", "x.tls.example.com"}
		for _, tc := range []struct {
			k    source.Kind
			want []string
		}{
			{HTTPRouteKind(), []string{"x.http.example.com", "x.https.example.com"}},
			{GRPCRouteKind(), []string{"x.http.example.com", "x.https.example.com"}},
			{TLSRouteKind(), []string{"x.tls.example.com"}},
			{TCPRouteKind(), []string{"*.tls.example.com", "tcp.example.com", "x.tls.example.com"}}, // no spec.hostnames: a TLS listener's own hostname too,
			{UDPRouteKind(), []string{"udp.example.com"}},
		} {
			kindName := strings.TrimPrefix(tc.k.Name, "gateway-")
			r := gt.Route{Kind: map[string]string{"httproute": "HTTPRoute", "grpcroute": "GRPCRoute", "tlsroute": "TLSRoute", "tcproute": "TCPRoute", "udproute": "UDPRoute"}[kindName],
				Namespace: "a", Name: "r", Parents: []gt.Parent{acc("gw")}}
			switch kindName {
			case "tcproute": // no spec.hostnames: the annotation's names meet the listeners
				r = ann(r, "hostname", "tcp.example.com,x.tls.example.com")
			case "udproute":
				r = ann(r, "hostname", "udp.example.com")
			default:
				r.Hostnames = hosts
			}
			got, _ := c.run(t, tc.k, source.Config{}, nsA, []gt.Gateway{g}, []gt.Route{r})
			var want []string
			for _, h := range tc.want {
				want = append(want, h+" A 192.0.2.1 "+kindName+"/a/r")
			}
			expect(t, got, want)
		}
	})
}

// The source follows changes: a route's new hostname and a Gateway's new address call the handlers
// and show in the next Endpoints; LookupObject finds routes for Events.
func TestGatewayEventsAndLookup(t *testing.T) {
	c := startCluster(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := c.clients.Create(ctx, []gt.Namespace{{Name: "a"}},
		[]gt.Gateway{gw("a", "gw", []string{"192.0.2.1"}, lis("l", ""))},
		[]gt.Route{http("a", "r", []string{"one.example.com"}, acc("gw"))}); err != nil {
		t.Fatal(err)
	}
	src, err := HTTPRouteKind().New(ctx, source.Env{Kube: c.api.Kube(t), REST: c.api.Config, Config: source.Config{}})
	if err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int32
	src.AddEventHandler(func() { calls.Add(1) })
	// The objects come with their kind: the event recorder's scheme does not know them.
	lookup := func(kind, name, wantKind string) {
		t.Helper()
		obj, ok := src.(source.ObjectLookup).LookupObject(kind, "a", name)
		if !ok || obj.(metav1.Object).GetName() != name || obj.GetObjectKind().GroupVersionKind().String() != "gateway.networking.k8s.io/v1, Kind="+wantKind {
			t.Fatalf("LookupObject(%s, a, %s): %v %v", kind, name, obj, ok)
		}
	}
	lookup("httproute", "r", "HTTPRoute")
	lookup("Gateway", "gw", "Gateway")
	if _, ok := src.(source.ObjectLookup).LookupObject("ingress", "a", "r"); ok {
		t.Fatal("LookupObject found a route for kind ingress")
	}
	rt, err := c.clients.Gateway.GatewayV1().HTTPRoutes("a").Get(ctx, "r", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rt.Spec.Hostnames = []gwv1.Hostname{"two.example.com"}
	if _, err := c.clients.Gateway.GatewayV1().HTTPRoutes("a").Update(ctx, rt, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	testbed.Eventually(t, 10*time.Second, "hostname change seen", func() error {
		lookup("HTTPRoute", "r", "HTTPRoute") // now from a watch event
		res, err := src.Endpoints(ctx)
		if err != nil {
			return err
		}
		if got := describe(res.Endpoints); !slices.Equal(got, []string{"two.example.com A 192.0.2.1 httproute/a/r"}) || calls.Load() == 0 {
			return fmt.Errorf("endpoints %q, %d handler calls", got, calls.Load())
		}
		return nil
	})
	c.setGatewayAddress(t, "a", "gw", "192.0.2.99")
	testbed.Eventually(t, 10*time.Second, "address change seen", func() error {
		res, err := src.Endpoints(ctx)
		if err != nil {
			return err
		}
		if got := describe(res.Endpoints); !slices.Equal(got, []string{"two.example.com A 192.0.2.99 httproute/a/r"}) {
			return fmt.Errorf("endpoints %q", got)
		}
		return nil
	})
}

// Reads lists exactly what the source reads, so that RBAC rules can be derived from it.
func TestGatewayKindReads(t *testing.T) {
	for _, k := range Kinds() {
		if !k.Cluster {
			t.Errorf("%s: Cluster is false: it would be built without waiting for its CRD and RBAC", k.Name)
		}
		res := map[string]bool{}
		for _, r := range k.Reads(source.Config{}) {
			res[fmt.Sprintf("%s/%s %s cluster=%v crd=%v", r.Group, r.Version, r.Resource, r.ClusterScoped, r.CRD)] = true
		}
		label := strings.TrimPrefix(k.Name, "gateway-")
		version := "v1"
		if label == "tlsroute" || label == "tcproute" || label == "udproute" {
			version = "v1alpha2"
		}
		want := map[string]bool{
			"gateway.networking.k8s.io/v1 gateways cluster=true crd=true":                          true,
			fmt.Sprintf("gateway.networking.k8s.io/%s %ss cluster=false crd=true", version, label): true,
			"/v1 namespaces cluster=true crd=false":                                                true,
		}
		if fmt.Sprint(res) != fmt.Sprint(want) {
			t.Errorf("%s reads %v, want %v", k.Name, res, want)
		}
		withSets := k.Reads(source.Config{GatewayListenerSets: true})
		if last := withSets[len(withSets)-1]; len(withSets) != 4 || last.Resource != "listenersets" || last.Group != group || !last.ClusterScoped {
			t.Errorf("%s with --gateway-listener-sets reads %v", k.Name, withSets)
		}
		if !slices.Equal(k.ResourceLabelKinds(), []string{label}) {
			t.Errorf("%s resource labels %v", k.Name, k.ResourceLabelKinds())
		}
	}
}

func TestMatchHost(t *testing.T) {
	for _, tc := range []struct{ listener, route, want string }{
		{"", "a.example.com", "a.example.com"},
		{"a.example.com", "", "a.example.com"},
		{"a.example.com", "a.example.com", "a.example.com"},
		{"*.example.com", "a.example.com", "a.example.com"},
		{"*.example.com", "a.b.example.com", "a.b.example.com"},
		{"a.example.com", "*.example.com", "a.example.com"},
		{"*.example.com", "*.b.example.com", "*.b.example.com"},
		{"*.example.com", "example.com", ""},
		{"*.example.com", "a.example.org", ""},
		{"a.example.com", "b.example.com", ""},
	} {
		got, ok := matchHost(tc.listener, tc.route)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("matchHost(%q, %q) = %q %v, want %q", tc.listener, tc.route, got, ok, tc.want)
		}
	}
}

// Routes attached to ListenerSets (--gateway-listener-sets): the parent Gateway must be selected and
// allow the ListenerSet (spec.allowedListeners), the ListenerSet and the listener must be Accepted,
// "Same" means the ListenerSet's namespace, and the targets are the ListenerSet's target annotation,
// else the Gateway's.
func TestListenerSets(t *testing.T) {
	c := startCluster(t)
	ctx := context.Background()
	nss := []gt.Namespace{{Name: "a"}, {Name: "b", Labels: map[string]string{"env": "prod"}}, {Name: "c"}}
	gws := []gt.Gateway{
		{Namespace: "a", Name: "open", Addresses: []string{"192.0.2.1"}, AllowedListeners: gwv1.NamespacesFromAll, Listeners: []gt.Listener{lis("own", "own.example.com")}},
		{Namespace: "a", Name: "closed", Addresses: []string{"192.0.2.2"}, Listeners: []gt.Listener{lis("own", "own.example.com")}},
		{Namespace: "a", Name: "selector", Addresses: []string{"192.0.2.3"}, AllowedListeners: gwv1.NamespacesFromSelector,
			ListenerSelector: map[string]string{"env": "prod"}, Listeners: []gt.Listener{lis("own", "own.example.com")}},
		{Namespace: "a", Name: "target-gw", Addresses: []string{"192.0.2.4"}, AllowedListeners: gwv1.NamespacesFromAll,
			Annotations: map[string]string{"external-dns.alpha.kubernetes.io/target": "gw-lb.example.net"}, Listeners: []gt.Listener{lis("own", "own.example.com")}},
	}
	l := func(name, host string, from gwv1.FromNamespaces, port int32) gt.Listener {
		return gt.Listener{Name: name, Hostname: host, From: from, Port: port}
	}
	sets := []gt.ListenerSet{
		{Namespace: "b", Name: "ls1", Gateway: "a/open", Accepted: yes, NotAccepted: []string{"y"},
			Listeners: []gt.Listener{l("x", "*.ls1.example.com", "", 81), l("y", "y.lsy.example.com", gwv1.NamespacesFromAll, 82)}},
		{Namespace: "b", Name: "ls-closed", Gateway: "a/closed", Accepted: yes, Listeners: []gt.Listener{l("x", "*.closed.example.com", "", 81)}},
		{Namespace: "b", Name: "ls-sel", Gateway: "a/selector", Accepted: yes, Listeners: []gt.Listener{l("x", "*.sel.example.com", "", 81)}},
		{Namespace: "c", Name: "ls-sel2", Gateway: "a/selector", Accepted: yes, Listeners: []gt.Listener{l("x", "*.sel2.example.com", "", 81)}},
		{Namespace: "b", Name: "ls-notacc", Gateway: "a/open", Accepted: no, Listeners: []gt.Listener{l("x", "*.notacc.example.com", "", 81)}},
		{Namespace: "b", Name: "ls-target", Gateway: "a/target-gw", Accepted: yes, Listeners: []gt.Listener{l("x", "*.lst.example.com", "", 81)},
			Annotations: map[string]string{"external-dns.alpha.kubernetes.io/target": "ls-lb.example.net"}},
		{Namespace: "b", Name: "ls-gwtarget", Gateway: "a/target-gw", Accepted: yes, Listeners: []gt.Listener{l("x", "*.lsg.example.com", "", 81)}},
	}
	ls := func(ns, name string) gt.Parent {
		return gt.Parent{Kind: "ListenerSet", Namespace: ns, Name: name, Accepted: yes}
	}
	routes := []gt.Route{
		http("b", "r1", []string{"a.ls1.example.com", "y.lsy.example.com"}, ls("", "ls1")),
		http("c", "r2", []string{"c.ls1.example.com"}, ls("b", "ls1")),
		http("b", "r3", []string{"a.closed.example.com"}, ls("", "ls-closed")),
		http("b", "r4", []string{"a.sel.example.com"}, ls("", "ls-sel")),
		http("c", "r5", []string{"a.sel2.example.com"}, ls("", "ls-sel2")),
		http("b", "r6", []string{"a.notacc.example.com"}, ls("", "ls-notacc")),
		http("b", "r7", []string{"a.lst.example.com"}, ls("", "ls-target")),
		http("b", "r8", []string{"a.lsg.example.com"}, ls("", "ls-gwtarget")),
	}
	if err := c.clients.Create(ctx, nss, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.clients.CreateListenerSets(ctx, sets); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := c.clients.DeleteListenerSets(ctx, sets); err != nil {
			t.Fatal(err)
		}
	}()
	for _, tc := range []struct {
		cfg  source.Config
		want []string
	}{
		{source.Config{}, nil},
		{source.Config{GatewayListenerSets: true}, []string{
			"a.ls1.example.com A 192.0.2.1 httproute/b/r1",
			"a.lsg.example.com CNAME gw-lb.example.net httproute/b/r8",
			"a.lst.example.com CNAME ls-lb.example.net httproute/b/r7",
			"a.sel.example.com A 192.0.2.3 httproute/b/r4",
		}},
		{source.Config{GatewayListenerSets: true, GatewayName: "open"}, []string{"a.ls1.example.com A 192.0.2.1 httproute/b/r1"}},
		{source.Config{GatewayListenerSets: true, GatewayNamespace: "b"}, nil}, // the parent Gateways are in a
	} {
		got, _ := c.run(t, HTTPRouteKind(), tc.cfg, nss, gws, routes)
		expect(t, got, tc.want)
	}
}
