package source

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestFilters(t *testing.T) {
	lb := corev1.LoadBalancerIngress{IP: "203.0.113.10"}
	mk := func(ns, name string, lbls, ann map[string]string) runtime.Object {
		s := lbService(name, ann, lb)
		s.ObjectMeta = metav1.ObjectMeta{Namespace: ns, Name: name, Labels: lbls, Annotations: s.Annotations}
		if s.Annotations == nil {
			s.Annotations = map[string]string{}
		}
		s.Annotations[alpha+"hostname"] = name + ".example.com"
		return s
	}
	objs := []runtime.Object{
		mk("default", "a", map[string]string{"team": "blue"}, map[string]string{"kubernetes.io/ingress.class": "nginx"}),
		mk("default", "b", map[string]string{"team": "red"}, map[string]string{"kubernetes.io/ingress.class": "traefik"}),
		mk("prod", "c", map[string]string{"team": "blue"}, nil),
	}
	cases := []struct {
		name string
		cfg  Config
		want []string
	}{
		{"no filter", Config{}, []string{"a", "b", "c"}},
		{"namespace", Config{Namespace: "prod"}, []string{"c"}},
		{"label filter", Config{LabelFilter: "team=blue"}, []string{"a", "c"}},
		{"label filter set syntax", Config{LabelFilter: "team in (red, green)"}, []string{"b"}},
		{"annotation filter", Config{AnnotationFilter: "kubernetes.io/ingress.class in (nginx)"}, []string{"a"}},
		{"annotation filter exists", Config{AnnotationFilter: "kubernetes.io/ingress.class"}, []string{"a", "b"}},
		{"annotation and label filter", Config{AnnotationFilter: "kubernetes.io/ingress.class=traefik", LabelFilter: "team=blue"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, tc.cfg, objs...)
			var got []string
			for _, e := range r.Endpoints {
				got = append(got, strings.TrimSuffix(e.DNSName, ".example.com"))
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestConfigErrors(t *testing.T) {
	cases := []struct {
		name string
		cfg  Config
		want string
	}{
		{"bad label filter", Config{LabelFilter: "team in (blue"}, "--label-filter"},
		{"bad annotation filter", Config{AnnotationFilter: "a b c"}, "--annotation-filter"},
		{"bad template", Config{FQDNTemplate: "{{.Name"}, "--fqdn-template"},
		{"ignore hostname annotation needs a template", Config{IgnoreHostnameAnnotation: true}, "requires --fqdn-template"},
		{"ingress class vs annotation filter", Config{IngressClassNames: []string{"nginx"}, AnnotationFilter: "kubernetes.io/ingress.class=nginx"}, "mutually exclusive"},
		{"bad service type", Config{ServiceTypeFilter: []string{"Balancer"}}, "--service-type-filter"},
		{"prefix without slash", Config{AnnotationPrefix: "example.org"}, "--annotation-prefix"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := compile(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("compile: %v, want an error mentioning %q", err, tc.want)
			}
			if _, err := NewManifest(t.TempDir(), tc.cfg); err == nil {
				t.Errorf("NewManifest accepted %+v", tc.cfg)
			}
		})
	}
}

// A template failing on one object is a Problem on that object, not an error.
func TestTemplateFailureIsAProblem(t *testing.T) {
	ok := ingress("ok", nil, nil, ingLB("203.0.113.10"))
	ok.Labels = map[string]string{"team": "blue"}
	missing := ingress("missing", nil, nil, ingLB("203.0.113.11"))
	r := run(t, Config{FQDNTemplate: `{{.Name}}.{{index .Labels "team"}}.example.com`}, ok, missing)
	expectEndpoints(t, r.Endpoints, "ok.blue.example.com A 203.0.113.10 res=ingress/default/ok")
	if len(r.Problems) != 1 || r.Problems[0].Object.Name != "missing" || r.Problems[0].Field != "--fqdn-template" {
		t.Errorf("problems: %v", r.Problems)
	}
}
