package source

import (
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

func TestDNSEndpointEntriesAreValidatedOneByOne(t *testing.T) {
	c, err := compile(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	d := &DNSEndpoint{}
	d.Namespace, d.Name = "default", "mixed"
	d.Spec.Endpoints = []*endpoint.Endpoint{
		endpoint.NewWithTTL("OK.example.com.", "a", 60, "192.0.2.1").WithLabel(endpoint.OwnerLabelKey, "forged"),
		endpoint.New("bad.example.com", "A", "nope"),
		endpoint.New(strings.Repeat("x", 64)+".example.com", "A", "192.0.2.2"),
		endpoint.New("norecordtype.example.com", "", "192.0.2.3"),
		endpoint.New("txt.example.com", "TXT", `"v=spf1 -all"`),
	}
	var problems problemList
	eps := c.dnsEndpointEndpoints(d, &problems)
	if len(eps) != 2 || eps[0].DNSName != "ok.example.com" || eps[0].RecordType != "A" || eps[0].RecordTTL != 60 || eps[1].RecordType != "TXT" {
		t.Fatalf("endpoints %v", eps)
	}
	if eps[0].Resource() != "crd/default/mixed" || eps[0].Owner() != "" {
		t.Fatalf("labels %v: resource must be set and a forged owner dropped", eps[0].Labels)
	}
	// The forged owner is a problem too (it was dropped without one before): ownership is the registry's.
	want := []string{"spec.endpoints[0].labels.owner", "spec.endpoints[1].targets[0]", "spec.endpoints[2].dnsName", "spec.endpoints[3].recordType"}
	if len(problems.items) != len(want) {
		t.Fatalf("problems %v", problems.items)
	}
	for i, p := range problems.items {
		if p.Field != want[i] || p.Object.Kind != "DNSEndpoint" || p.Object.Name != "mixed" {
			t.Errorf("problem %d = %+v, want field %s on DNSEndpoint default/mixed", i, p, want[i])
		}
	}
	if p := problems.items[0]; p.Value != "forged" || !strings.Contains(p.Reason, "--txt-owner-id") {
		t.Errorf("owner problem %+v: want the value and that the registry sets ownership", p)
	}
	// The object's spec is not modified.
	if d.Spec.Endpoints[0].DNSName != "OK.example.com" || d.Spec.Endpoints[0].RecordType != "a" {
		t.Fatal("generation modified the cached object")
	}
}

// --default-targets fill DNSEndpoint address entries that list no targets, as in external-dns; without
// the flag such an entry is a problem naming its field.
func TestDNSEndpointDefaultTargets(t *testing.T) {
	d := &DNSEndpoint{}
	d.Namespace, d.Name = "default", "wan"
	d.Spec.Endpoints = []*endpoint.Endpoint{
		endpoint.NewWithTTL("home.example.com", "A", 300),
		endpoint.New("txt.example.com", "TXT"),
		endpoint.New("set.example.com", "A", "192.0.2.9"),
	}
	cfg := DefaultConfig()
	cfg.DefaultTargets = []string{"203.0.113.7", "2001:db8::7"}
	c, err := compile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var problems problemList
	got := describeAll(c.dnsEndpointEndpoints(d, &problems))
	if want := "home.example.com A [203.0.113.7] ttl=300; home.example.com AAAA [2001:db8::7] ttl=300; set.example.com A [192.0.2.9] ttl=0"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if len(problems.items) != 1 || problems.items[0].Field != "spec.endpoints[1].targets" {
		t.Errorf("problems %+v: a TXT entry without targets is still one", problems.items)
	}
	c, _ = compile(DefaultConfig())
	problems = problemList{}
	if eps := c.dnsEndpointEndpoints(d, &problems); len(eps) != 1 || len(problems.items) != 2 {
		t.Errorf("without defaults: %v, problems %+v", eps, problems.items)
	}
}
