package coredns

import (
	"context"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

func applyOK(t *testing.T, p *Provider, c *plan.Changes) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := p.ApplyChanges(ctx, c); err != nil {
		t.Fatalf("ApplyChanges: %v", err)
	}
}

func answersOf(m *dns.Msg, rrtype uint16) []dns.RR {
	var out []dns.RR
	for _, rr := range m.Answer {
		if rr.Header().Rrtype == rrtype {
			out = append(out, rr)
		}
	}
	return out
}

// TestCNAMEWithSameNameTXT is external-dns #4953: with a TXT at the same name in the same batch,
// external-dns merged the text into the CNAME's value and CoreDNS answered TXT only. Here the CNAME
// must still answer as a CNAME, and the TXT as a TXT.
func TestCNAMEWithSameNameTXT(t *testing.T) {
	b := newBed(t, startEtcd(t), true, "example.com")
	applyOK(t, b.provider, &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.NewWithTTL("app.example.com", endpoint.RecordTypeCNAME, 300, "lb.example.net"),
		endpoint.NewWithTTL("app.example.com", endpoint.RecordTypeTXT, 300, `"heritage=external-dns,external-dns/owner=x"`),
	}})
	for k, v := range b.dump(t) {
		if containsAll(v, `"host"`, `"text"`) {
			t.Errorf("value at %s carries both host and text: %s", k, v)
		}
	}
	a := b.query(t, "app.example.com", dns.TypeA)
	cn := answersOf(a, dns.TypeCNAME)
	if len(cn) != 1 || cn[0].(*dns.CNAME).Target != "lb.example.net." {
		t.Fatalf("A query: want one CNAME to lb.example.net., got %v", a.Answer)
	}
	if txt := answersOf(a, dns.TypeTXT); len(txt) != 0 {
		t.Fatalf("A query answered TXT: %v", txt)
	}
	// Documented limit (README): a CNAME-type query reads only the name's own key, where nothing is
	// stored (external-dns's layout, kept for rollback compatibility).
	if r := b.query(t, "app.example.com", dns.TypeCNAME); r.Rcode != dns.RcodeNameError {
		t.Logf("CNAME-type query now answers %s %v: update the README's known limits", dns.RcodeToString[r.Rcode], r.Answer)
	}
	txt := answersOf(b.query(t, "app.example.com", dns.TypeTXT), dns.TypeTXT)
	if len(txt) != 1 {
		t.Fatalf("TXT query: want one TXT, got %v", txt)
	}
}

// TestSeveralTargetsAnswerAll checks that CoreDNS answers every target of a record set.
func TestSeveralTargetsAnswerAll(t *testing.T) {
	b := newBed(t, startEtcd(t), true, "example.com")
	targets := []string{"10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"}
	applyOK(t, b.provider, &plan.Changes{Create: []*endpoint.Endpoint{endpoint.NewWithTTL("multi.example.com", endpoint.RecordTypeA, 60, targets...)}})
	got := map[string]bool{}
	for _, rr := range answersOf(b.query(t, "multi.example.com", dns.TypeA), dns.TypeA) {
		got[rr.(*dns.A).A.String()] = true
		if rr.Header().Ttl != 60 {
			t.Errorf("TTL %d, want 60", rr.Header().Ttl)
		}
	}
	for _, want := range targets {
		if !got[want] {
			t.Errorf("missing %s in the answer (got %v)", want, got)
		}
	}
	if len(got) != len(targets) {
		t.Errorf("answer %v, want exactly %v", got, targets)
	}
}

// TestApexAnswersOnlyApex checks the dns/apex entries: without them an apex A query returns every A
// record of the zone; with them only the apex's own, and deleting the apex records removes them.
func TestApexAnswersOnlyApex(t *testing.T) {
	b := newBed(t, startEtcd(t), true, "example.com")
	apex := endpoint.NewWithTTL("example.com", endpoint.RecordTypeA, 300, "192.0.2.1", "192.0.2.2")
	apex6 := endpoint.NewWithTTL("example.com", endpoint.RecordTypeAAAA, 300, "2001:db8::1")
	apexTXT := endpoint.NewWithTTL("example.com", endpoint.RecordTypeTXT, 300, "v=spf1 -all")
	applyOK(t, b.provider, &plan.Changes{Create: []*endpoint.Endpoint{
		apex, apex6, apexTXT,
		endpoint.NewWithTTL("www.example.com", endpoint.RecordTypeA, 300, "10.0.0.1"),
		endpoint.NewWithTTL("deep.sub.example.com", endpoint.RecordTypeA, 300, "10.0.0.2"),
	}})
	got := map[string]bool{}
	for _, rr := range answersOf(b.query(t, "example.com", dns.TypeA), dns.TypeA) {
		got[rr.(*dns.A).A.String()] = true
	}
	if len(got) != 2 || !got["192.0.2.1"] || !got["192.0.2.2"] {
		t.Fatalf("apex A answered %v, want only 192.0.2.1 and 192.0.2.2", got)
	}
	aaaa := answersOf(b.query(t, "example.com", dns.TypeAAAA), dns.TypeAAAA)
	if len(aaaa) != 1 || aaaa[0].(*dns.AAAA).AAAA.String() != "2001:db8::1" {
		t.Fatalf("apex AAAA answered %v", aaaa)
	}
	// The mirror entries are not records of their own.
	expectSets(t, b.provider, apex, apex6, apexTXT,
		endpoint.NewWithTTL("www.example.com", endpoint.RecordTypeA, 300, "10.0.0.1"),
		endpoint.NewWithTTL("deep.sub.example.com", endpoint.RecordTypeA, 300, "10.0.0.2"))

	// Updating the apex keeps the mirror in step.
	apex2 := endpoint.NewWithTTL("example.com", endpoint.RecordTypeA, 300, "192.0.2.9")
	applyOK(t, b.provider, &plan.Changes{UpdateOld: []*endpoint.Endpoint{apex}, UpdateNew: []*endpoint.Endpoint{apex2}})
	a := answersOf(b.query(t, "example.com", dns.TypeA), dns.TypeA)
	if len(a) != 1 || a[0].(*dns.A).A.String() != "192.0.2.9" {
		t.Fatalf("apex A after update answered %v, want 192.0.2.9", a)
	}
	applyOK(t, b.provider, &plan.Changes{Delete: []*endpoint.Endpoint{apex2, apex6}})
	for k := range b.dump(t) {
		if containsAll(k, "dns/apex/") {
			t.Errorf("apex mirror %s left behind after the apex records were deleted", k)
		}
	}
}

// TestRejectsUnservableNames checks the per-change rejections specific to this backend.
func TestRejectsUnservableNames(t *testing.T) {
	b := newBed(t, startEtcd(t), false, "example.com")
	ok := endpoint.NewWithTTL("ok.example.com", endpoint.RecordTypeA, 300, "10.0.0.1")
	err := b.provider.ApplyChanges(context.Background(), &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.NewWithTTL("*.wild.example.com", endpoint.RecordTypeA, 300, "10.0.0.1"),
		endpoint.NewWithTTL("any.example.com", endpoint.RecordTypeA, 300, "10.0.0.1"),
		endpoint.NewWithTTL("example.com", endpoint.RecordTypeCNAME, 300, "lb.example.net"),
		endpoint.NewWithTTL("two.example.com", endpoint.RecordTypeCNAME, 300, "a.example.net", "b.example.net"),
		endpoint.NewWithTTL("v4.example.com", endpoint.RecordTypeA, 300, "2001:db8::1"),
		endpoint.NewWithTTL("apex.dns.example.com", endpoint.RecordTypeA, 300, "10.0.0.1"),
		endpoint.NewWithTTL("srv.example.com", endpoint.RecordTypeSRV, 300, "0 0 80 a.example.com"),
		endpoint.NewWithTTL("set.example.com", endpoint.RecordTypeA, 300, "10.0.0.1").WithSetIdentifier("eu"),
		ok,
	}})
	ae, isApply := provider.AsApplyError(err)
	if !isApply || len(ae.Rejected) != 8 {
		t.Fatalf("want 8 rejected changes, got %v", err)
	}
	for _, r := range ae.Rejected {
		if r.Endpoint.DNSName == "ok.example.com" {
			t.Fatalf("valid change rejected: %v", r.Err)
		}
		t.Logf("rejected %s %s: %v", r.Endpoint.DNSName, r.Endpoint.RecordType, r.Err)
	}
	expectSets(t, b.provider, ok)
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !contains(s, sub) {
			return false
		}
	}
	return true
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}
