package pdns

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// patchCounter counts the PATCH requests the provider sends.
type patchCounter struct {
	next    http.RoundTripper
	patches atomic.Int64
}

func (c *patchCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPatch {
		c.patches.Add(1)
	}
	return c.next.RoundTrip(r)
}

func countPatches(p *Provider) *patchCounter {
	c := &patchCounter{next: p.api.http.Transport}
	p.api.http.Transport = c
	return c
}

func a(name, ip string) *endpoint.Endpoint {
	return endpoint.NewWithTTL(name, endpoint.RecordTypeA, 300, ip)
}

// A CNAME beside an existing A makes PowerDNS refuse the whole PATCH (422 "Conflicts with
// pre-existing RRset"). The CNAME is reported with PowerDNS's message and the record; the other 41
// changes of the call, in the same zone, are applied. Run with the message shortcut and with plain
// bisection, and with two refused rrsets.
func TestRefusedRRsetIsIsolated(t *testing.T) {
	for _, tc := range []struct {
		name      string
		byMessage bool
		clashes   int
		// maxPatches bounds the cost: 1 + rest + the refused alone with the message; about 2·log2(n)
		// per refused rrset when bisecting.
		maxPatches int64
	}{
		{"message names the rrset", true, 1, 3},
		{"bisection", false, 1, 14},
		{"bisection, two refused", false, 2, 24},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startServer(t)
			s.p.isolateByMessage = tc.byMessage
			s.seed(t, "example.com", "taken0.example.com", "A", 300, "10.0.0.1")
			s.seed(t, "example.com", "taken1.example.com", "A", 300, "10.0.0.1")
			s.seed(t, "example.com", "old.example.com", "A", 300, "10.0.0.5")
			var creates []*endpoint.Endpoint
			for i := range 20 {
				n := strings.Repeat("x", i+1) + ".example.com"
				creates = append(creates, a(n, "10.1.0.1"),
					endpoint.NewWithTTL("a-"+n, endpoint.RecordTypeTXT, 300, `"heritage=external-dns,external-dns/owner=o,external-dns/resource=ingress/default/x"`))
				if i == 7 || (i == 15 && tc.clashes == 2) {
					creates = append(creates, endpoint.NewWithTTL("taken"+map[bool]string{true: "0", false: "1"}[i == 7]+".example.com", endpoint.RecordTypeCNAME, 300, "lb.example.net"))
				}
			}
			counter := countPatches(s.p)
			err := s.p.ApplyChanges(ctxT(t), &plan.Changes{Create: creates, Delete: []*endpoint.Endpoint{a("old.example.com", "10.0.0.5")}})
			ae, ok := provider.AsApplyError(err)
			if !ok || len(ae.Rejected) != tc.clashes {
				t.Fatalf("want %d rejected change(s), got %v", tc.clashes, err)
			}
			for _, r := range ae.Rejected {
				msg := r.Err.Error()
				if r.Action != provider.ActionCreate || r.Endpoint.RecordType != endpoint.RecordTypeCNAME ||
					!strings.Contains(msg, "Conflicts with pre-existing RRset") || !strings.Contains(msg, r.Endpoint.DNSName+".") ||
					!strings.Contains(msg, "lb.example.net.") {
					t.Errorf("rejection does not carry PowerDNS's message and the record: %s %s: %s", r.Action, r.Endpoint, msg)
				}
			}
			stored := s.rrsets(t, "example.com")
			for _, e := range creates {
				if e.RecordType == endpoint.RecordTypeCNAME {
					if _, there := stored[e.DNSName+" CNAME"]; there {
						t.Errorf("refused CNAME %s stored", e.DNSName)
					}
					continue
				}
				if _, there := stored[e.DNSName+" "+e.RecordType]; !there {
					t.Errorf("%s %s not applied", e.DNSName, e.RecordType)
				}
			}
			if _, there := stored["old.example.com A"]; there {
				t.Error("delete of old.example.com not applied")
			}
			n := counter.patches.Load()
			t.Logf("%d changes, %d refused: %d PATCH requests", len(creates)+1, tc.clashes, n)
			if n > tc.maxPatches {
				t.Errorf("%d PATCHes, want at most %d", n, tc.maxPatches)
			}
		})
	}
}

// Validation failures are rejected per change before anything is sent, naming the problem.
func TestInvalidChangesRejectedPerChange(t *testing.T) {
	s := startServer(t)
	good := a("good.example.com", "10.0.0.1")
	cases := []struct {
		ep   *endpoint.Endpoint
		want string
	}{
		{endpoint.NewWithTTL("example.com", endpoint.RecordTypeCNAME, 300, "lb.example.net"), "CNAME at the zone apex"},
		{endpoint.NewWithTTL("two.example.com", endpoint.RecordTypeCNAME, 300, "a.example.net", "b.example.net"), "exactly one target"},
		{a("bad-ip.example.com", "10.0.0.300"), "targets[0]"},
		{endpoint.NewWithTTL("empty.example.com", endpoint.RecordTypeA, 300), "no targets"},
		{endpoint.NewWithTTL("naptr.example.com", endpoint.RecordTypeNAPTR, 300, "x"), "NAPTR data is"},
		{endpoint.NewWithTTL("sshfp.example.com", "SSHFP", 300, "1 1 1234"), "not supported"},
		{a("set.example.com", "10.0.0.1").WithSetIdentifier("eu"), "set identifiers"},
		{a("www.example.org", "10.0.0.1"), "outside --domain-filter example.com"},
		{endpoint.NewWithTTL("mx.example.com", endpoint.RecordTypeMX, 300, "ten mail.example.com"), "not a number"},
	}
	creates := []*endpoint.Endpoint{good}
	for _, c := range cases {
		creates = append(creates, c.ep)
	}
	counter := countPatches(s.p)
	err := s.p.ApplyChanges(ctxT(t), &plan.Changes{Create: creates})
	ae, ok := provider.AsApplyError(err)
	if !ok || len(ae.Rejected) != len(cases) {
		t.Fatalf("want %d rejections, got %v", len(cases), err)
	}
	for i, r := range ae.Rejected {
		if r.Endpoint != cases[i].ep || !strings.Contains(r.Err.Error(), cases[i].want) {
			t.Errorf("rejection %d: %s: %v; want %q", i, r.Endpoint, r.Err, cases[i].want)
		}
	}
	if n := counter.patches.Load(); n != 1 {
		t.Errorf("%d PATCHes, want 1 (invalid changes are never sent)", n)
	}
	if _, there := s.rrsets(t, "example.com")["good.example.com A"]; !there {
		t.Error("the valid change was not applied")
	}
}

// MX, SRV, NS (below the apex) and PTR are written with trailing dots and read back as endpoints.
func TestOtherTypesRoundTrip(t *testing.T) {
	s := startServer(t)
	want := []*endpoint.Endpoint{
		endpoint.NewWithTTL("example.com", endpoint.RecordTypeMX, 300, "10 mail.example.com", "20 backup.example.net"),
		endpoint.NewWithTTL("_sip._tcp.example.com", endpoint.RecordTypeSRV, 300, "0 50 5060 sip.example.com."),
		endpoint.NewWithTTL("sub.example.com", endpoint.RecordTypeNS, 300, "ns1.sub.example.com"),
		endpoint.NewWithTTL("1.2.0.192.example.com", endpoint.RecordTypePTR, 300, "host.example.com"),
		endpoint.NewWithTTL("*.wild.example.com", endpoint.RecordTypeA, 300, "10.0.0.9"),
	}
	if err := s.p.ApplyChanges(ctxT(t), &plan.Changes{Create: want}); err != nil {
		t.Fatal(err)
	}
	stored := s.rrsets(t, "example.com")
	if c := stored["_sip._tcp.example.com SRV"].Records[0].Content; c != "0 50 5060 sip.example.com." {
		t.Errorf("SRV stored as %q", c)
	}
	got, err := s.p.Records(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]*endpoint.Endpoint{}
	for _, e := range got {
		byKey[e.DNSName+" "+e.RecordType] = e
	}
	for _, w := range want {
		g := byKey[w.DNSName+" "+w.RecordType]
		if g == nil || !g.Targets.Same(w.Targets) || g.RecordTTL != w.RecordTTL {
			t.Errorf("%s %s read back as %v", w.DNSName, w.RecordType, g)
		}
	}
	if e := byKey["example.com NS"]; e != nil {
		t.Errorf("apex NS listed: %v", e)
	}
	if e := byKey["example.com SOA"]; e != nil {
		t.Errorf("SOA listed: %v", e)
	}
}

// PowerDNS unreachable: a plain error (the controller retries the run), never an ApplyError; after a
// restart the same call succeeds.
func TestUnreachableServerIsAPlainError(t *testing.T) {
	s := startServer(t)
	s.pdns.Stop()
	err := s.p.ApplyChanges(ctxT(t), &plan.Changes{Create: []*endpoint.Endpoint{a("www.example.com", "10.0.0.1")}})
	if err == nil {
		t.Fatal("no error with PowerDNS down")
	}
	if _, ok := provider.AsApplyError(err); ok {
		t.Fatalf("an outage must be a plain error, got %v", err)
	}
	if _, err := s.p.Records(ctxT(t)); err == nil {
		t.Fatal("Records: no error with PowerDNS down")
	}
	if err := s.pdns.Start(); err != nil {
		t.Fatal(err)
	}
	if err := s.p.ApplyChanges(ctxT(t), &plan.Changes{Create: []*endpoint.Endpoint{a("www.example.com", "10.0.0.1")}}); err != nil {
		t.Fatalf("after restart: %v", err)
	}
}
