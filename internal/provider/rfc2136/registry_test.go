package rfc2136

import (
	"testing"

	"github.com/miekg/dns"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/registry/txt"
)

// Records already in the zone, with no ownership TXT, are listed by Records, and the plan with the
// TXT registry never changes them: not when a desired endpoint asks for the same name, and not when
// everything ours is deleted under the sync policy. What we publish converges (a second plan is
// empty: TXT values and TTLs read back as written).
func TestForeignRecordsAreNeverTouched(t *testing.T) {
	b := newBed(t, `legacy IN A 192.0.2.10`, `legacy IN TXT "hand written"`, `@ IN MX 10 mx.example.net.`)
	reg, err := txt.New(b.p, txt.Config{OwnerID: "zk"})
	if err != nil {
		t.Fatal(err)
	}
	web := func(name, ip string) *endpoint.Endpoint {
		return ep(name, endpoint.RecordTypeA, 0, ip).WithLabel(endpoint.ResourceLabelKey, "ingress/default/web")
	}
	run := func(desired ...*endpoint.Endpoint) plan.Result {
		t.Helper()
		current, err := reg.Records(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		res := plan.Calculate(plan.Input{Desired: desired, Current: current, OwnerID: "zk", Policy: plan.PolicySync})
		if err := reg.ApplyChanges(ctxT(t), res.Changes); err != nil {
			t.Fatalf("apply %+v: %v", res.Changes, err)
		}
		return res
	}
	foreignIntact := func() {
		t.Helper()
		got := recordsByKey(t, b.p)
		if got["legacy.example.com A"] != "192.0.2.10" || got["legacy.example.com TXT"] != "hand written" || got["example.com MX"] != "10 mx.example.net" {
			t.Fatalf("foreign records changed: %v", got)
		}
	}

	current, err := reg.Records(ctxT(t))
	if err != nil || len(current) != 3 {
		t.Fatalf("the registry lists the foreign records: %v %v", current, err)
	}
	res := run(web("legacy.example.com", "10.0.0.1"), web("new.example.com", "10.0.0.2"))
	if len(res.OwnerMismatches) == 0 {
		t.Error("taking over legacy.example.com was not reported")
	}
	foreignIntact()
	if got := answers(t, b.bind.Addr, "new.example.com", dns.TypeA, nil); len(got) != 1 || got[0] != "10.0.0.2" {
		t.Fatalf("new.example.com: %v", got)
	}
	if got := answers(t, b.bind.Addr, "a-new.example.com", dns.TypeTXT, nil); len(got) != 1 ||
		got[0] != `"heritage=external-dns,external-dns/owner=zk,external-dns/resource=ingress/default/web"` {
		t.Fatalf("ownership TXT: %v", got)
	}
	if again := run(web("legacy.example.com", "10.0.0.1"), web("new.example.com", "10.0.0.2")); again.Changes.HasChanges() {
		t.Fatalf("not converged: %+v", again.Changes)
	}

	run() // sync with nothing desired: ours goes, theirs stays
	foreignIntact()
	for _, n := range []string{"new.example.com", "a-new.example.com"} {
		if r := query(t, b.bind.Addr, n, dns.TypeANY, nil); r.Rcode != dns.RcodeNameError {
			t.Errorf("%s still exists: %v", n, r.Answer)
		}
	}
}

// A zone as external-dns's rfc2136 provider leaves it: the ownership TXT holds the value without its
// quote characters (external-dns parses the quoted target as zone-file text). zonekeeper with the same
// owner id recognises it and has nothing to change.
func TestTakeOverAZoneExternalDNSWrote(t *testing.T) {
	b := newBed(t, `web 300 IN A 10.0.0.1`,
		`a-web IN TXT "heritage=external-dns,external-dns/owner=zk,external-dns/resource=ingress/default/web"`)
	reg, err := txt.New(b.p, txt.Config{OwnerID: "zk"})
	if err != nil {
		t.Fatal(err)
	}
	current, err := reg.Records(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	desired := ep("web.example.com", endpoint.RecordTypeA, 300, "10.0.0.1").WithLabel(endpoint.ResourceLabelKey, "ingress/default/web")
	res := plan.Calculate(plan.Input{Desired: []*endpoint.Endpoint{desired}, Current: current, OwnerID: "zk", Policy: plan.PolicySync})
	if res.Changes.HasChanges() || len(res.OwnerMismatches) > 0 {
		t.Fatalf("changes %+v, mismatches %+v", res.Changes, res.OwnerMismatches)
	}
	// And a delete removes both, whatever the stored TXT text.
	res = plan.Calculate(plan.Input{Current: current, OwnerID: "zk", Policy: plan.PolicySync})
	if err := reg.ApplyChanges(ctxT(t), res.Changes); err != nil {
		t.Fatal(err)
	}
	if got := recordsByKey(t, b.p); len(got) != 0 {
		t.Fatalf("left behind: %v", got)
	}
}
