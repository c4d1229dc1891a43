package aws

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

const ownerValue = `"heritage=external-dns,external-dns/owner=o,external-dns/resource=service/default/%s"`

// owned returns a record and its ownership TXT as the TXT registry sends them on a create.
func owned(name, ip, resource string) (*endpoint.Endpoint, *endpoint.Endpoint) {
	rec := ep(name, endpoint.RecordTypeA, 300, ip).WithLabel(endpoint.ResourceLabelKey, "service/default/"+resource)
	host, domain, _ := strings.Cut(name, ".")
	txt := ep("a-"+host+"."+domain, endpoint.RecordTypeTXT, 300, fmt.Sprintf(ownerValue, resource)).WithLabel(endpoint.OwnedRecordLabelKey, name)
	return rec, txt
}

// Batches respect --aws-batch-change-size and keep each record with its ownership TXT, also for a
// delete, where the TXT comes from a listing and carries no ownedRecord label.
func TestBatchesKeepRecordWithTXT(t *testing.T) {
	staticCredentials(t)
	srv, url := emulator(t, route53emu.Options{})
	seed(t, srv, route53emu.SeedZone{Name: "example.com"})
	p := newProvider(t, url, Config{BatchChangeSize: 5})
	var create []*endpoint.Endpoint
	for i := range 12 {
		rec, txt := owned(fmt.Sprintf("h%d.example.com", i), fmt.Sprintf("10.0.0.%d", i+1), fmt.Sprintf("s%d", i))
		// The TXT arrives far from its record, as a plan may order them.
		create = append([]*endpoint.Endpoint{txt}, create...)
		create = append(create, rec)
	}
	if err := p.ApplyChanges(ctxT(t), &plan.Changes{Create: create}); err != nil {
		t.Fatal(err)
	}
	// 24 changes, 2 per group, at most 5 per batch: 2 groups (4 changes) per batch → 6 calls.
	if got := srv.Counters().Calls["ChangeResourceRecordSets"]; got != 6 {
		t.Fatalf("ChangeResourceRecordSets calls = %d, want 6", got)
	}
	if got := len(dump(srv, "example.com.")); got != 24 {
		t.Fatalf("%d record sets, want 24", got)
	}

	// Deleting: the TXTs come from the listing, without labels; they still pair by resource.
	p.Invalidate()
	recs, err := p.Records(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.RecordType == endpoint.RecordTypeA {
			r.Labels[endpoint.ResourceLabelKey] = "service/default/s" + strings.TrimPrefix(strings.TrimSuffix(r.DNSName, ".example.com"), "h")
		}
	}
	zs, _ := p.zones(ctxT(t))
	b := &builder{p: p, zones: zs, perZone: map[string][]*unit{}}
	for _, r := range recs {
		b.add(provider.ActionDelete, r, nil)
	}
	for _, bt := range p.pack(b.perZone[zs[0].id], b.origins) {
		for _, g := range bt {
			if len(g) != 2 || g[0].rtype == g[1].rtype {
				t.Fatalf("group %v is not one record with its TXT", names(g))
			}
		}
	}
}

func names(g group) []string {
	var out []string
	for _, u := range g {
		out = append(out, u.name+"/"+u.rtype)
	}
	return out
}

// An UPSERT counts twice against the limits, as Route 53 counts it.
func TestUpsertCountsTwice(t *testing.T) {
	p := &Provider{cfg: Config{BatchChangeSize: 4, BatchChangeSizeBytes: 32000, BatchChangeSizeValues: 1000}}
	var units []*unit
	var origins []origin
	for i := range 4 {
		e := ep(fmt.Sprintf("u%d.example.com", i), endpoint.RecordTypeA, 60, "10.0.0.1")
		origins = append(origins, origin{action: provider.ActionUpdate, ep: e})
		rr, err := p.toRRSet(e, "Z1")
		if err != nil {
			t.Fatal(err)
		}
		units = append(units, &unit{origin: i, name: normName(e.DNSName), rtype: "A", changes: upserts(rr)})
	}
	if got := len(p.pack(units, origins)); got != 2 {
		t.Fatalf("4 UPSERTs under a limit of 4 changes: %d batches, want 2", got)
	}
}

// The weighted set beside a simple one is refused by Route 53; its TXT is held back with it, and the
// twenty other records of the call are applied.
func TestRejectedChangeIsolated(t *testing.T) {
	staticCredentials(t)
	srv, url := emulator(t, route53emu.Options{})
	seed(t, srv, route53emu.SeedZone{Name: "externaldns.test", Records: []route53emu.RecordSet{
		{Name: "bbbb.externaldns.test", Type: "A", TTL: num(300), ResourceRecords: values("192.0.2.1")},
	}})
	p := newProvider(t, url, Config{})
	var create []*endpoint.Endpoint
	for i := range 20 {
		rec, txt := owned(fmt.Sprintf("ok%d.externaldns.test", i), fmt.Sprintf("10.0.1.%d", i+1), fmt.Sprintf("ok%d", i))
		create = append(create, rec, txt)
	}
	bad, badTXT := owned("bbbb.externaldns.test", "10.9.9.9", "nginx")
	for _, e := range []*endpoint.Endpoint{bad, badTXT} {
		e.SetIdentifier = "nginx"
		e.SetProviderSpecific(propWeight, "100")
	}
	create = append(create[:20], append([]*endpoint.Endpoint{bad, badTXT}, create[20:]...)...)
	err := p.ApplyChanges(ctxT(t), &plan.Changes{Create: create})
	ae, ok := provider.AsApplyError(err)
	if !ok {
		t.Fatalf("want an *ApplyError, got %v", err)
	}
	if len(ae.Rejected) != 2 || ae.Rejected[0].Endpoint != bad && ae.Rejected[1].Endpoint != bad {
		t.Fatalf("rejected %v, want the weighted bbbb A and its TXT", err)
	}
	want := "RRSet with DNS name bbbb.externaldns.test., type A, SetIdentifier nginx cannot be created as a non-weighted set exists with the same name and type"
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("the error does not carry Route 53's message %q: %v", want, err)
	}
	got := dump(srv, "externaldns.test.")
	if len(got) != 41 { // 20 records, 20 TXTs, the seeded bbbb
		t.Fatalf("%d record sets, want 41: %v", len(got), keys(got))
	}
	if _, ok := got["a-bbbb.externaldns.test. TXT nginx"]; ok {
		t.Fatal("the TXT of the rejected record was written without it")
	}
	// One failed call, one call for the rest, one for the culprit alone.
	if n := srv.Counters().Calls["ChangeResourceRecordSets"]; n != 3 {
		t.Fatalf("ChangeResourceRecordSets calls = %d, want 3 (message names the culprit)", n)
	}
}

// A message that names no record (a duplicate value) is isolated by halving.
func TestRejectionWithoutNameBisected(t *testing.T) {
	staticCredentials(t)
	srv, url := emulator(t, route53emu.Options{})
	seed(t, srv, route53emu.SeedZone{Name: "example.com"})
	p := newProvider(t, url, Config{})
	var create []*endpoint.Endpoint
	for i := range 16 {
		create = append(create, ep(fmt.Sprintf("n%d.example.com", i), endpoint.RecordTypeA, 60, fmt.Sprintf("10.0.2.%d", i+1)))
	}
	dup := ep("dup.example.com", endpoint.RecordTypeA, 60, "10.0.3.1", "10.0.3.1")
	create = append(create[:5], append([]*endpoint.Endpoint{dup}, create[5:]...)...)
	err := p.ApplyChanges(ctxT(t), &plan.Changes{Create: create})
	ae, ok := provider.AsApplyError(err)
	if !ok || len(ae.Rejected) != 1 || ae.Rejected[0].Endpoint != dup {
		t.Fatalf("want dup.example.com rejected alone, got %v", err)
	}
	if !strings.Contains(err.Error(), "Duplicate Resource Record") {
		t.Fatalf("Route 53's message is missing: %v", err)
	}
	if got := len(dump(srv, "example.com.")); got != 16 {
		t.Fatalf("%d record sets, want 16", got)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
