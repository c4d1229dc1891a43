package source

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

func TestAnnotationPrefixes(t *testing.T) {
	lb := corev1.LoadBalancerIngress{IP: "203.0.113.10"}
	res := " res=service/default/web"
	cases := []struct {
		name string
		cfg  Config
		ann  map[string]string
		want []string
	}{
		{"alpha prefix", DefaultConfig(), map[string]string{alpha + "hostname": "a.example.com", alpha + "ttl": "60"},
			[]string{"a.example.com A 203.0.113.10 ttl=60" + res}},
		{"GA prefix", DefaultConfig(), map[string]string{ga + "hostname": "a.example.com", ga + "ttl": "60"},
			[]string{"a.example.com A 203.0.113.10 ttl=60" + res}},
		{"GA wins when both are set", DefaultConfig(), map[string]string{
			alpha + "hostname": "alpha.example.com", ga + "hostname": "ga.example.com",
			alpha + "ttl": "60", ga + "ttl": "120",
			alpha + "aws-weight": "1", ga + "aws-weight": "2", alpha + "aws-region": "eu-west-1"},
			[]string{"ga.example.com A 203.0.113.10 ttl=120 ps=aws/region=eu-west-1;aws/weight=2" + res}},
		{"both prefixes with the same value", DefaultConfig(), map[string]string{
			alpha + "hostname": "a.example.com", ga + "hostname": "a.example.com"},
			[]string{"a.example.com A 203.0.113.10" + res}},
		{"prefixes mix key by key", DefaultConfig(), map[string]string{alpha + "hostname": "a.example.com", ga + "set-identifier": "x"},
			[]string{"a.example.com A 203.0.113.10 set=x" + res}},
		{"custom prefix reads only itself", Config{AnnotationPrefix: "internal.example.org/"}, map[string]string{
			alpha + "hostname": "alpha.example.com", ga + "hostname": "ga.example.com",
			"internal.example.org/hostname": "custom.example.com", "internal.example.org/coredns-group": "g1"},
			[]string{"custom.example.com A 203.0.113.10 ps=coredns/group=g1" + res}},
		{"custom prefix equal to alpha ignores GA", Config{AnnotationPrefix: alpha}, map[string]string{
			alpha + "hostname": "alpha.example.com", ga + "hostname": "ga.example.com"},
			[]string{"alpha.example.com A 203.0.113.10" + res}},
		{"provider-specific pass-through", DefaultConfig(), map[string]string{alpha + "hostname": "a.example.com",
			alpha + "aws-evaluate-target-health": "false", ga + "coredns-group": "g", alpha + "webhook-zone": "z",
			alpha + "scw-x": "y", ga + "alias": "false", "other.io/aws-weight": "9"},
			[]string{"a.example.com A 203.0.113.10 ps=alias=false;aws/evaluate-target-health=false;coredns/group=g;scw/x=y;webhook/zone=z" + res}},
		{"hostname list with spaces and trailing dots", DefaultConfig(), map[string]string{alpha + "hostname": " a.example.com., B.example.com ,,"},
			[]string{"a.example.com A 203.0.113.10" + res, "b.example.com A 203.0.113.10" + res}},
		{"controller dns-controller is ours", DefaultConfig(), map[string]string{alpha + "hostname": "a.example.com", alpha + "controller": "dns-controller"},
			[]string{"a.example.com A 203.0.113.10" + res}},
		{"other controller skips the object", DefaultConfig(), map[string]string{alpha + "hostname": "a.example.com", ga + "controller": "someone-else"}, nil},
	}
	// problems: the Problems a case reports (none when absent): an alpha annotation that GA overrides
	// with another value is reported, so that the owner knows it is not read.
	problems := map[string][]string{"GA wins when both are set": {
		"metadata.annotations[" + alpha + "aws-weight] \"1\": not read: " + ga + "aws-weight is also set (to \"2\") and wins",
		"metadata.annotations[" + alpha + "hostname] \"alpha.example.com\": not read: " + ga + "hostname is also set (to \"ga.example.com\") and wins",
		"metadata.annotations[" + alpha + "ttl] \"60\": not read: " + ga + "ttl is also set (to \"120\") and wins",
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, tc.cfg, lbService("web", tc.ann, lb))
			expectEndpoints(t, r.Endpoints, tc.want...)
			want, reported := problems[tc.name]
			if !reported {
				expectNoProblems(t, r)
				return
			}
			var got []string
			for _, p := range r.Problems {
				got = append(got, fmt.Sprintf("%s %q: %s", p.Field, p.Value, p.Reason))
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("problems:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

func TestParseTTL(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"60", 60, true}, {" 300 ", 300, true}, {"10m", 600, true}, {"1h30m", 5400, true}, {"1.5s", 1, true},
		{"2147483647", 2147483647, true},
		{"0", 0, false}, {"-5", 0, false}, {"2147483648", 0, false}, {"abc", 0, false}, {"", 0, false}, {"500ms", 0, false},
	}
	for _, tc := range cases {
		got, err := parseTTL(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseTTL(%q) = %d, %v; want %d ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// Each malformed value is a Problem naming the object and field; only that value is dropped, and the
// object's other records and other objects are still produced.
func TestMalformedAnnotationsAreProblems(t *testing.T) {
	long := "a123456789012345678901234567890123456789012345678901234567890123456789" // 70 characters
	bad := lbService("bad", map[string]string{
		alpha + "hostname":       "good.example.com," + long + ".example.com",
		alpha + "ttl":            "abc",
		alpha + "target":         "198.51.100.1,not a host!,edge.example.net",
		alpha + "access":         "sideways",
		alpha + "alias":          "maybe",
		ga + "internal-hostname": "-bad-.example.com",
	}, corev1.LoadBalancerIngress{IP: "203.0.113.10"})
	other := lbService("other", map[string]string{ga + "hostname": "other.example.com"}, corev1.LoadBalancerIngress{IP: "203.0.113.20"})
	r := run(t, DefaultConfig(), bad, other)

	expectEndpoints(t, r.Endpoints,
		"good.example.com A 198.51.100.1 res=service/default/bad",
		"good.example.com CNAME edge.example.net res=service/default/bad",
		"other.example.com A 203.0.113.20 res=service/default/other",
	)
	obj := endpoint.ObjectRef{Kind: "Service", Namespace: "default", Name: "bad"}
	p := findProblem(t, r, obj, "metadata.annotations[external-dns.alpha.kubernetes.io/ttl]")
	if p.Value != "abc" || p.Reason == "" {
		t.Errorf("ttl problem: %+v", p)
	}
	if p := findProblem(t, r, obj, "metadata.annotations[external-dns.alpha.kubernetes.io/hostname]"); p.Value != long+".example.com" {
		t.Errorf("hostname problem names %q", p.Value)
	}
	if p := findProblem(t, r, obj, "metadata.annotations[external-dns.alpha.kubernetes.io/target]"); p.Value != "not a host!" {
		t.Errorf("target problem names %q", p.Value)
	}
	findProblem(t, r, obj, "metadata.annotations[external-dns.alpha.kubernetes.io/alias]")
	findProblem(t, r, obj, "metadata.annotations[external-dns.kubernetes.io/internal-hostname]")
	// access is read only by NodePort services: on a LoadBalancer one it is reported, not ignored.
	if p := findProblem(t, r, obj, "metadata.annotations[external-dns.alpha.kubernetes.io/access]"); !strings.Contains(p.Reason, "not read on a LoadBalancer Service") {
		t.Errorf("access problem: %+v", p)
	}
	if len(r.Problems) != 6 {
		t.Errorf("want 6 problems, got %d: %v", len(r.Problems), r.Problems)
	}
	for _, p := range r.Problems {
		if p.Object != obj {
			t.Errorf("problem on the wrong object: %v", p)
		}
	}
}

// Bad input in status, specs and supporting objects is reported on the right object too.
func TestMalformedObjectFieldsAreProblems(t *testing.T) {
	svc := lbService("web", map[string]string{alpha + "hostname": "web.example.com"},
		corev1.LoadBalancerIngress{IP: "203.0.113.10"}, corev1.LoadBalancerIngress{Hostname: "bad_host..example"})
	ing := ingress("site", nil, []string{"ok.example.com", "bad host.example.com"})
	ing.Status.LoadBalancer.Ingress = append(ing.Status.LoadBalancer.Ingress, ingLB("203.0.113.30"))
	np := &corev1.Service{ObjectMeta: om("np", map[string]string{alpha + "hostname": "np.example.com", alpha + "access": "sideways"}),
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort}}
	r := run(t, DefaultConfig(), []runtime.Object{svc, ing, np, node("n1", false, ext("203.0.113.1"), ext("not-an-ip"))}...)
	expectEndpoints(t, r.Endpoints,
		"web.example.com A 203.0.113.10 res=service/default/web",
		"np.example.com A 203.0.113.1 res=service/default/np",
		"ok.example.com A 203.0.113.30 res=ingress/default/site",
	)
	findProblem(t, r, endpoint.ObjectRef{Kind: "Service", Namespace: "default", Name: "web"}, "status.loadBalancer.ingress[1].hostname")
	findProblem(t, r, endpoint.ObjectRef{Kind: "Ingress", Namespace: "default", Name: "site"}, "spec.rules[1].host")
	findProblem(t, r, endpoint.ObjectRef{Kind: "Service", Namespace: "default", Name: "np"}, "metadata.annotations[external-dns.alpha.kubernetes.io/access]")
	findProblem(t, r, endpoint.ObjectRef{Kind: "Node", Name: "n1"}, "status.addresses[1].address")
}

// Hostile input must never panic.
func TestGenerationNeverPanics(t *testing.T) {
	values := []string{"", ",", " , ", ".", "..", "*", "*.*", "\x00", "💥", "10m", "-1", "1e9", "::", "0.0.0.0", "a,b,c", string(make([]byte, 300))}
	keys := []string{"hostname", "internal-hostname", "target", "ttl", "controller", "access", "endpoints-type", "ingress-hostname-source", "set-identifier", "alias", "aws-", "webhook-x"}
	for _, v := range values {
		ann := map[string]string{}
		for _, k := range keys {
			ann[alpha+k] = v
			ann[ga+k] = v + ","
		}
		objs := []runtime.Object{
			lbService("lb", ann, corev1.LoadBalancerIngress{IP: v, Hostname: v}),
			&corev1.Service{ObjectMeta: om("np", ann), Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, ExternalTrafficPolicy: corev1.ServiceExternalTrafficPolicyLocal}},
			&corev1.Service{ObjectMeta: om("hl", ann), Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone}},
			&corev1.Service{ObjectMeta: om("en", ann), Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: v}},
			ingress("ing", ann, []string{v}, ingLB(v)),
			endpointSlice("hl-1", "hl", sliceEndpoint("p", v, true)),
			pod("p", v, v, true, nil),
			node(v+"n", false, ext(v)),
		}
		run(t, Config{FQDNTemplate: "{{.Name}}" + v, CombineFQDNAndAnnotation: true, ExcludeUnschedulable: true}, objs...)
	}
}

// Issue 11 defect 7: an aws- annotation Route 53 does not know (a typo) was copied as a property that
// the provider then dropped without a word. It is a problem on the object naming the known ones; the
// known ones still apply.
func TestUnknownAWSAnnotationIsAProblem(t *testing.T) {
	svc := lbService("weighted", map[string]string{
		alpha + "hostname":       "w.example.com",
		alpha + "set-identifier": "one",
		alpha + "aws-weight":     "10",
		alpha + "aws-wieght":     "20",
	}, corev1.LoadBalancerIngress{IP: "203.0.113.10"})
	r := run(t, DefaultConfig(), svc)
	if len(r.Endpoints) != 1 {
		t.Fatalf("endpoints: %v", r.Endpoints)
	}
	if v, ok := r.Endpoints[0].GetProviderSpecific("aws/weight"); !ok || v != "10" {
		t.Errorf("aws/weight = %q, %v", v, ok)
	}
	if _, ok := r.Endpoints[0].GetProviderSpecific("aws/wieght"); ok {
		t.Error("the misspelled annotation was carried as a property")
	}
	obj := endpoint.ObjectRef{Kind: "Service", Namespace: "default", Name: "weighted"}
	p := findProblem(t, r, obj, "metadata.annotations[external-dns.alpha.kubernetes.io/aws-wieght]")
	if p.Value != "20" || !strings.Contains(p.Reason, "aws-weight)") {
		t.Errorf("problem: %+v", p)
	}
}
