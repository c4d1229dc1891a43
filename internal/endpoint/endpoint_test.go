package endpoint

import (
	"encoding/json"
	"strings"
	"testing"
)

// The JSON shape is external-dns's, so webhook providers and DNSEndpoint objects decode unchanged.
func TestJSONShapeMatchesExternalDNS(t *testing.T) {
	e := NewWithTTL("nginx.example.com", RecordTypeA, 300, "203.0.113.10").
		WithSetIdentifier("eu").
		WithLabel(OwnerLabelKey, "cluster-a").
		WithLabel(ResourceLabelKey, "service/default/nginx").
		WithProviderSpecific("aws/weight", "10")
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"dnsName":"nginx.example.com","targets":["203.0.113.10"],"recordType":"A","setIdentifier":"eu","recordTTL":300,"labels":{"owner":"cluster-a","resource":"service/default/nginx"},"providerSpecific":[{"name":"aws/weight","value":"10"}]}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	var back Endpoint
	if err := json.Unmarshal([]byte(want), &back); err != nil {
		t.Fatal(err)
	}
	if back.Key() != e.Key() || !back.Targets.Same(e.Targets) || back.RecordTTL != 300 || back.Labels[OwnerLabelKey] != "cluster-a" {
		t.Fatalf("round trip: %+v", back)
	}
	// Every field is optional on decode.
	if err := json.Unmarshal([]byte(`{}`), &back); err != nil {
		t.Fatal(err)
	}
}

func TestNewTrimsTrailingDotsExceptRecordData(t *testing.T) {
	if e := New("www.example.com.", RecordTypeCNAME, "lb.example.net."); e.DNSName != "www.example.com" || e.Targets[0] != "lb.example.net" {
		t.Fatalf("CNAME: %v", e)
	}
	if e := New("_sip._tcp.example.com", RecordTypeSRV, "0 50 5060 sip.example.com."); e.Targets[0] != "0 50 5060 sip.example.com." {
		t.Fatalf("SRV data changed: %v", e.Targets)
	}
}

func TestNormalizeDNSName(t *testing.T) {
	ok := map[string]string{
		"WWW.Example.COM.":       "www.example.com",
		" api.example.com ":      "api.example.com",
		"*.apps.example.com":     "*.apps.example.com",
		"_http._tcp.example.com": "_http._tcp.example.com",
		"bücher.example.com":     "xn--bcher-kva.example.com",
		"ÉCOLE.example.com":      "xn--cole-9oa.example.com",
	}
	for in, want := range ok {
		got, err := NormalizeDNSName(in)
		if err != nil || got != want {
			t.Errorf("NormalizeDNSName(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	bad := map[string]string{
		"":                                       "empty",
		strings.Repeat("a", 64) + ".example.com": "64 characters",
		"a..example.com":                         "empty label",
		"under score!.example.com":               "contains",
		"-lead.example.com":                      "starts or ends",
		"www.*.example.com":                      "contains",
		strings.Repeat("abcdefghi.", 26) + "com": "limit is 253",
	}
	for in, want := range bad {
		if _, err := NormalizeDNSName(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("NormalizeDNSName(%q) error %v, want mention of %q", in, err, want)
		}
	}
}

func TestValidateNamesTheField(t *testing.T) {
	cases := []struct {
		e     *Endpoint
		field string
	}{
		{New(strings.Repeat("x", 70)+".example.com", RecordTypeA, "192.0.2.1"), "dnsName"},
		{New("a.example.com", RecordTypeA, "not-an-ip"), "targets[0]"},
		{New("a.example.com", RecordTypeA, "192.0.2.1", "2001:db8::1"), "targets[1]"},
		{New("a.example.com", RecordTypeAAAA, "192.0.2.1"), "targets[0]"},
		{New("a.example.com", RecordTypeCNAME, "not a host!"), "targets[0]"},
		{New("a.example.com", RecordTypeCNAME, "192.0.2.1"), "targets[0]"},
		{New("a.example.com", RecordTypeA), "targets"},
		{NewWithTTL("a.example.com", RecordTypeA, -1, "192.0.2.1"), "recordTTL"},
	}
	for _, c := range cases {
		err := c.e.Validate()
		if err == nil || err.Field != c.field {
			t.Errorf("%v: error %v, want field %s", c.e, err, c.field)
		}
	}
	good := NewWithTTL("WWW.example.com.", RecordTypeAAAA, 60, "2001:DB8:0:0::1")
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	if good.DNSName != "www.example.com" || good.Targets[0] != "2001:db8::1" {
		t.Fatalf("not normalised: %v", good)
	}
}

func TestClassifyTarget(t *testing.T) {
	for in, want := range map[string]string{"192.0.2.1": RecordTypeA, "2001:db8::1": RecordTypeAAAA, "LB.example.net.": RecordTypeCNAME} {
		_, rt, err := ClassifyTarget(in)
		if err != nil || rt != want {
			t.Errorf("ClassifyTarget(%q) = %s, %v; want %s", in, rt, err, want)
		}
	}
	if _, _, err := ClassifyTarget("not a host!"); err == nil {
		t.Error("a target with spaces was accepted")
	}
}

func TestTargetsSameAndIsLess(t *testing.T) {
	if !(Targets{"2001:db8::1", "LB.example.net."}).Same(Targets{"lb.example.net", "2001:0db8:0::1"}) {
		t.Error("Same must ignore order, case, trailing dot and IPv6 spelling")
	}
	if (Targets{"192.0.2.1"}).Same(Targets{"192.0.2.1", "192.0.2.2"}) {
		t.Error("different lengths are not the same")
	}
	if !(Targets{"192.0.2.9"}).IsLess(Targets{"a.example.com"}) {
		t.Error("IPs sort before hostnames")
	}
	if !(Targets{"192.0.2.9"}).IsLess(Targets{"192.0.2.1", "192.0.2.2"}) {
		t.Error("shorter lists sort first")
	}
	if !(Targets{"192.0.2.1"}).IsLess(Targets{"192.0.2.2"}) || (Targets{"192.0.2.2"}).IsLess(Targets{"192.0.2.1"}) {
		t.Error("lexical order")
	}
}

func TestProviderSpecificHelpers(t *testing.T) {
	e := New("a.example.com", RecordTypeA, "192.0.2.1").WithProviderSpecific("x", "1").WithProviderSpecific("y", "2")
	e.SetProviderSpecific("x", "3")
	if v, _ := e.GetProviderSpecific("x"); v != "3" {
		t.Fatalf("x = %s", v)
	}
	e.DeleteProviderSpecific("y")
	if _, ok := e.GetProviderSpecific("y"); ok {
		t.Fatal("y not deleted")
	}
	if !SameProviderSpecific(ProviderSpecific{{"a", "1"}, {"b", "2"}}, ProviderSpecific{{"b", "2"}, {"a", "1"}}) {
		t.Fatal("order must not matter")
	}
	c := e.DeepCopy()
	c.Targets[0] = "192.0.2.99"
	c.Labels["k"] = "v"
	if e.Targets[0] != "192.0.2.1" || e.Labels["k"] != "" {
		t.Fatal("DeepCopy shares memory")
	}
}

func TestInDomainIsOnLabelBoundaries(t *testing.T) {
	for _, c := range []struct {
		name, domain string
		want         bool
	}{
		{"example.com", "example.com", true},
		{"www.example.com", "example.com", true},
		{"a.b.example.com.", "example.com.", true},
		{"badexample.com", "example.com", false},
		{"www.badexample.com", "example.com", false},
		{"example.com", "www.example.com", false},
		{"com", "example.com", false},
	} {
		if got := InDomain(c.name, c.domain); got != c.want {
			t.Errorf("InDomain(%q, %q) = %v, want %v", c.name, c.domain, got, c.want)
		}
	}
}

func BenchmarkInDomain(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		InDomain("www.example.com.", "example.com.")
	}
}
