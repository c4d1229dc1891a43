package source

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// ptrFixture: Services asking for PTRs under each annotation prefix, opting out, with a bad value, on
// a CNAME-only object, and two objects sharing an address (one PTR record set with both names).
func ptrFixture(t *testing.T) Result {
	lb := func(name, host string, ann map[string]string, addrs ...string) *corev1.Service {
		if ann == nil {
			ann = map[string]string{}
		}
		ann[PrefixGA+"hostname"] = host
		var ing []corev1.LoadBalancerIngress
		for _, a := range addrs {
			if strings.Contains(a, ".example") {
				ing = append(ing, corev1.LoadBalancerIngress{Hostname: a})
			} else {
				ing = append(ing, corev1.LoadBalancerIngress{IP: a})
			}
		}
		return lbService(name, ann, ing...)
	}
	return run(t, Config{},
		lb("ga", "ga.example.com", map[string]string{PrefixGA + "record-type": "ptr", PrefixGA + "ttl": "600"}, "192.0.2.1", "2001:db8::1"),
		lb("alpha", "alpha.example.com", map[string]string{PrefixAlpha + "record-type": "PTR", PrefixGA + "ttl": "300"}, "192.0.2.1"),
		lb("plain", "plain.example.com", nil, "192.0.2.2"),
		lb("optout", "optout.example.com", map[string]string{PrefixGA + "record-type": ""}, "192.0.2.3"),
		lb("bogus", "bogus.example.com", map[string]string{PrefixGA + "record-type": "srv"}, "192.0.2.4"),
		lb("cname", "cname.example.com", map[string]string{PrefixGA + "record-type": "ptr"}, "lb.example.net"),
	)
}

func ptrRun(t *testing.T, cfg PTRConfig) Result {
	t.Helper()
	r := ptrFixture(t)
	out, err := PostProcess(fixed(r.Endpoints), PostProcessConfig{PTR: cfg, MinTTL: 60}).Endpoints(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPTRRecordType: the record-type annotation under either prefix asks for PTRs of the object's A
// and AAAA records, as external-dns v0.23 does; the address shared by two objects gets one record set
// with both names and the lower TTL; the property never reaches a provider.
func TestPTRRecordType(t *testing.T) {
	r := ptrRun(t, PTRConfig{Managed: true})
	expectEndpoints(t, r.Endpoints,
		"ga.example.com A 192.0.2.1 ttl=600 res=service/default/ga",
		"ga.example.com AAAA 2001:db8::1 ttl=600 res=service/default/ga",
		"alpha.example.com A 192.0.2.1 ttl=300 res=service/default/alpha",
		"plain.example.com A 192.0.2.2 ttl=60 res=service/default/plain",
		"optout.example.com A 192.0.2.3 ttl=60 res=service/default/optout",
		"bogus.example.com A 192.0.2.4 ttl=60 res=service/default/bogus",
		"cname.example.com CNAME lb.example.net ttl=60 res=service/default/cname",
		"1.2.0.192.in-addr.arpa PTR alpha.example.com,ga.example.com ttl=300 res=service/default/alpha",
		"1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa PTR ga.example.com ttl=600 res=service/default/ga",
	)
	want := map[string]string{
		"bogus": "must be ptr, or empty to opt out",
		"cname": "applies to A and AAAA records only",
	}
	for _, p := range r.Problems {
		if w, ok := want[p.Object.Name]; ok && strings.Contains(p.Reason, w) && p.Value != "" {
			delete(want, p.Object.Name)
			continue
		}
		t.Errorf("unexpected problem: %v", p)
	}
	for name, w := range want {
		t.Errorf("no problem on service %s saying %q", name, w)
	}
}

// TestCreatePTR: --create-ptr gives every A and AAAA record its PTR (an unset TTL is the lowest, then
// --min-ttl applies), except the object that opts out with an empty record-type.
func TestCreatePTR(t *testing.T) {
	r := ptrRun(t, PTRConfig{Managed: true, Create: true})
	var ptrs []*endpoint.Endpoint
	for _, e := range r.Endpoints {
		if e.RecordType == endpoint.RecordTypePTR {
			ptrs = append(ptrs, e)
		}
	}
	expectEndpoints(t, ptrs,
		"1.2.0.192.in-addr.arpa PTR alpha.example.com,ga.example.com ttl=300 res=service/default/alpha",
		"2.2.0.192.in-addr.arpa PTR plain.example.com ttl=60 res=service/default/plain",
		"1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa PTR ga.example.com ttl=600 res=service/default/ga",
	)
}

// TestRecordTypeWithoutManagedPTR: without PTR in --managed-record-types no PTR is made, as in
// external-dns v0.23, but an object asking for one hears why (zonekeeper ignores nothing silently).
func TestRecordTypeWithoutManagedPTR(t *testing.T) {
	r := ptrRun(t, PTRConfig{})
	asked := map[string]bool{}
	for _, e := range r.Endpoints {
		if e.RecordType == endpoint.RecordTypePTR {
			t.Errorf("PTR made without PTR managed: %v", e)
		}
		if _, ok := e.GetProviderSpecific(endpoint.ProviderSpecificRecordType); ok {
			t.Errorf("%s keeps the record-type property", e.DNSName)
		}
	}
	for _, p := range r.Problems {
		if strings.Contains(p.Reason, "PTR is not in --managed-record-types") {
			asked[p.Object.Name] = true
		}
	}
	for _, name := range []string{"ga", "alpha", "cname"} {
		if !asked[name] {
			t.Errorf("service %s asked for a PTR and was not told: %v", name, r.Problems)
		}
	}
	if asked["optout"] || asked["bogus"] {
		t.Errorf("objects not asking for a PTR were told: %v", r.Problems)
	}
}

// TestPTROutsideDomainFilter: a PTR --domain-filter leaves out is not made (external-dns's plan drops
// it); the objects that asked for one with record-type hear why, the ones --create-ptr covers do not.
func TestPTROutsideDomainFilter(t *testing.T) {
	inFilter := func(name string) bool { return strings.HasSuffix(name, "example.com") }
	r := ptrRun(t, PTRConfig{Managed: true, Create: true, InDomainFilter: inFilter})
	for _, e := range r.Endpoints {
		if e.RecordType == endpoint.RecordTypePTR {
			t.Errorf("PTR made outside --domain-filter: %v", e)
		}
	}
	told := map[string]bool{}
	for _, p := range r.Problems {
		if strings.Contains(p.Reason, "outside --domain-filter") {
			told[p.Object.Name] = true
		}
	}
	// ga asked for 192.0.2.1 first (alpha shares it) and for its IPv6 address; plain only has --create-ptr.
	if !told["alpha"] || !told["ga"] || told["plain"] {
		t.Errorf("told %v, want alpha and ga only: %v", told, r.Problems)
	}
}
