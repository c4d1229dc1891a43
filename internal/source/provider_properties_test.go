package source

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// readers are the kinds of a process publishing with configured, as the app builds them: each of
// aws, cloudflare, coredns and webhook reads its own namespace, the others none; aws and webhook read
// alias, and every kind passes any other name without "/" (no provider's).
func readers(configured ...string) *PropertyReaders {
	all := []string{"aws", "azure", "cloudflare", "coredns", "google", "webhook"}
	return &PropertyReaders{Configured: configured, ReadBy: func(name string) []string {
		if name == "alias" {
			return []string{"aws", "webhook"}
		}
		if !strings.Contains(name, "/") {
			return all
		}
		for _, k := range all {
			if strings.HasPrefix(name, k+"/") {
				return []string{k}
			}
		}
		return nil
	}}
}

// A cloudflare- annotation that no configured kind reads is a problem naming the annotation, and no
// property; one that another view's kind reads is kept without a problem; without ProviderProperties
// (nil) everything is kept, as before.
func TestAnAnnotationNoConfiguredKindReadsIsReported(t *testing.T) {
	svc := lbService("cf", map[string]string{
		alpha + "hostname":           "cf.example.com",
		alpha + "cloudflare-proxied": "true",
		alpha + "aws-weight":         "10",
		alpha + "scw-anything":       "x",
		alpha + "alias":              "true",
	}, corev1.LoadBalancerIngress{IP: "203.0.113.10"})
	obj := endpoint.ObjectRef{Kind: "Service", Namespace: "default", Name: "cf"}
	for _, c := range []struct {
		name       string
		readers    *PropertyReaders
		properties string
		problems   map[string]string // annotation → reason
	}{
		{"google alone", readers("google"), "[]", map[string]string{
			"cloudflare-proxied": "read only by --provider=cloudflare; --provider=google does not read it: not applied",
			"aws-weight":         "read only by --provider=aws; --provider=google does not read it: not applied",
			"scw-anything":       "no provider reads this property; --provider=google does not read it: not applied",
			"alias":              "read only by --provider=aws, --provider=webhook; --provider=google does not read it: not applied",
		}},
		{"google and a cloudflare view", readers("google", "cloudflare"), "[{cloudflare/proxied true}]", map[string]string{
			"aws-weight":   "read only by --provider=aws; none of the providers configured (google, cloudflare) reads it: not applied",
			"scw-anything": "no provider reads this property; none of the providers configured (google, cloudflare) reads it: not applied",
			"alias":        "read only by --provider=aws, --provider=webhook; none of the providers configured (google, cloudflare) reads it: not applied",
		}},
		{"aws", readers("aws"), "[{alias true} {aws/weight 10}]", map[string]string{
			"cloudflare-proxied": "read only by --provider=cloudflare; --provider=aws does not read it: not applied",
			"scw-anything":       "no provider reads this property; --provider=aws does not read it: not applied",
		}},
		{"google and a webhook view", readers("google", "webhook"), "[{alias true}]", map[string]string{
			"cloudflare-proxied": "read only by --provider=cloudflare; none of the providers configured (google, webhook) reads it: not applied",
			"aws-weight":         "read only by --provider=aws; none of the providers configured (google, webhook) reads it: not applied",
			"scw-anything":       "no provider reads this property; none of the providers configured (google, webhook) reads it: not applied",
		}},
		{"not configured", nil, "[{alias true} {aws/weight 10} {cloudflare/proxied true} {scw/anything x}]", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.ProviderProperties = c.readers
			r := run(t, cfg, svc)
			if len(r.Endpoints) != 1 {
				t.Fatalf("endpoints: %v", r.Endpoints)
			}
			if got := fmt.Sprint(r.Endpoints[0].ProviderSpecific); got != c.properties {
				t.Errorf("properties %s, want %s", got, c.properties)
			}
			if len(r.Problems) != len(c.problems) {
				t.Errorf("problems %+v, want %d", r.Problems, len(c.problems))
			}
			for annotation, want := range c.problems {
				if p := findProblem(t, r, obj, "metadata.annotations["+alpha+annotation+"]"); p.Reason != want {
					t.Errorf("%s: reason %q, want %q", annotation, p.Reason, want)
				}
			}
		})
	}
}

// A DNSEndpoint's providerSpecific entry no configured kind reads is a problem naming the entry, and
// dropped; an ownedRecord label (the TXT registry's, naming the record an ownership TXT guards) is a
// problem and dropped, as the owner label is.
func TestDNSEndpointPropertiesAndOwnedRecordLabel(t *testing.T) {
	d := &DNSEndpoint{}
	d.Namespace, d.Name = "default", "props"
	d.Spec.Endpoints = []*endpoint.Endpoint{
		endpoint.New("a.example.com", "A", "192.0.2.1").WithProviderSpecific("cloudflare/proxied", "true").
			WithProviderSpecific("alias", "false").WithProviderSpecific("coredns/group", "g").WithProviderSpecific("record-type", "ptr"),
		endpoint.New("_x.example.com", "TXT", `"hello"`).WithLabel(endpoint.OwnedRecordLabelKey, "a.example.com"),
	}
	cfg := DefaultConfig()
	cfg.ProviderProperties = readers("coredns")
	c, err := compile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var problems problemList
	eps := c.dnsEndpointEndpoints(d, &problems)
	if len(eps) != 2 {
		t.Fatalf("endpoints %v", eps)
	}
	if got := fmt.Sprint(eps[0].ProviderSpecific); got != "[{coredns/group g} {record-type ptr}]" {
		t.Errorf("properties %s, want coredns/group and record-type (no provider's: the PTR stage reads it)", got)
	}
	if _, ok := eps[1].Labels[endpoint.OwnedRecordLabelKey]; ok {
		t.Errorf("labels %v: the ownedRecord label was kept", eps[1].Labels)
	}
	want := map[string]string{
		"spec.endpoints[0].providerSpecific[0]": "read only by --provider=cloudflare; --provider=coredns does not read it: not applied",
		"spec.endpoints[0].providerSpecific[1]": "read only by --provider=aws, --provider=webhook; --provider=coredns does not read it: not applied",
		"spec.endpoints[1].labels.ownedRecord":  "set by the TXT registry on ownership records, never by an object: ignored",
	}
	if len(problems.items) != len(want) {
		t.Fatalf("problems %+v", problems.items)
	}
	for _, p := range problems.items {
		if want[p.Field] != p.Reason || p.Object.Kind != "DNSEndpoint" || p.Object.Name != "props" {
			t.Errorf("problem %+v, want one of %v", p, want)
		}
	}
	if len(d.Spec.Endpoints[0].ProviderSpecific) != 4 || d.Spec.Endpoints[1].Labels[endpoint.OwnedRecordLabelKey] == "" {
		t.Error("generation modified the cached object")
	}
}
