package source

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// The cloudflare- annotations, under either prefix, become external-dns v0.23's cloudflare/
// properties, which the Cloudflare provider reads; a misspelt one is a problem on the object.
func TestCloudflareAnnotationsAreProperties(t *testing.T) {
	svc := lbService("cf", map[string]string{
		alpha + "hostname": "cf.example.com",
		"external-dns.kubernetes.io/cloudflare-proxied": "true",
		alpha + "cloudflare-record-comment":             "managed",
		alpha + "cloudflare-tags":                       "team:web, env:prod",
		alpha + "cloudflare-proxyed":                    "true",
	}, corev1.LoadBalancerIngress{IP: "203.0.113.10"})
	r := run(t, DefaultConfig(), svc)
	if len(r.Endpoints) != 1 {
		t.Fatalf("endpoints: %v", r.Endpoints)
	}
	for name, want := range map[string]string{"cloudflare/proxied": "true", "cloudflare/record-comment": "managed", "cloudflare/tags": "team:web, env:prod"} {
		if v, ok := r.Endpoints[0].GetProviderSpecific(name); !ok || v != want {
			t.Errorf("%s = %q, %v; want %q", name, v, ok, want)
		}
	}
	if _, ok := r.Endpoints[0].GetProviderSpecific("cloudflare/proxyed"); ok {
		t.Error("the misspelt annotation was carried as a property")
	}
	obj := endpoint.ObjectRef{Kind: "Service", Namespace: "default", Name: "cf"}
	p := findProblem(t, r, obj, "metadata.annotations[external-dns.alpha.kubernetes.io/cloudflare-proxyed]")
	if !strings.Contains(p.Reason, "cloudflare-proxied") {
		t.Errorf("problem: %+v", p)
	}
}
