package cloudflare

import (
	"fmt"
	"testing"

	cf "github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/dns"

	"github.com/zonekeeper/zonekeeper/internal/cloudflareemu"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

const tlsaDigest = "54ee30e752c6e751b7bfde666e638ec4e25f3974207258072299caa15e15820f"

// TLSA as external-dns v0.23 keeps it on Cloudflare (issue 13): written as structured data (the API
// refuses TLSA content), in a batch and through the single-record endpoint; the API answers the
// digest in upper case and Records reads it back in lower case, so a second sync plans nothing, with
// the object's digest in either case; an overwrite (a new TTL) goes through the batch's TLSA entry.
func TestTLSARoundTrip(t *testing.T) {
	emu, base := emulator(t, cloudflareemu.Options{})
	seedZones(t, emu, cloudflareemu.SeedZone{Name: "example.com"})
	p := newTestProvider(t, base, Config{})
	desired := []*endpoint.Endpoint{
		ep("_443._tcp.example.com", "TLSA", 300, "3 1 1 "+tlsaDigest),
		ep("_25._tcp.mail.example.com", "TLSA", 0, "3 1 1 "+upper(tlsaDigest)),
	}
	if err := adjustAndApply(t, p, &plan.Changes{Create: desired}); err != nil {
		t.Fatal(err)
	}
	recs := dumpZone(emu, "example.com")
	if len(recs) != 2 {
		t.Fatalf("records: %+v", recs)
	}
	for _, r := range recs {
		if r.Content != "3 1 1 "+upper(tlsaDigest) || fmt.Sprint(r.Data) != "map[certificate:"+tlsaDigest+" matching_type:1 selector:1 usage:3]" {
			t.Errorf("stored TLSA %s: content %q data %v", r.Name, r.Content, r.Data)
		}
	}
	ctx := testCtx(t)
	current, err := p.Records(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range current {
		if e.Targets[0] != "3 1 1 "+tlsaDigest {
			t.Errorf("Records lists %s %v", e.DNSName, e.Targets)
		}
	}
	adjusted, _ := p.AdjustEndpoints(ctx, desired)
	res := plan.Calculate(plan.Input{Desired: adjusted, Current: current, Policy: plan.PolicySync, ManagedRecordTypes: recordTypes})
	if res.Changes.HasChanges() {
		t.Fatalf("a second sync changes: create %v update %v delete %v", res.Changes.Create, res.Changes.UpdateNew, res.Changes.Delete)
	}

	// A new TTL overwrites both records through the batch's TLSA entries (one record alone would go
	// through the single-record update).
	changes := &plan.Changes{}
	for _, e := range adjusted {
		next := e.DeepCopy()
		next.RecordTTL = 600
		for _, c := range current {
			if c.DNSName == next.DNSName {
				changes.UpdateOld, changes.UpdateNew = append(changes.UpdateOld, c), append(changes.UpdateNew, next)
			}
		}
	}
	emu.ClearCalls()
	if err := p.ApplyChanges(ctx, changes); err != nil {
		t.Fatal(err)
	}
	if c := emu.Counters().Calls; c[cloudflareemu.OpRecordsBatch] != 1 || len(c) != 1 {
		t.Errorf("calls for two overwrites: %v", c)
	}
	for _, r := range dumpZone(emu, "example.com") {
		if r.TTL != 600 || r.Data["certificate"] != tlsaDigest {
			t.Errorf("after the overwrite: %+v", r)
		}
	}

	// The single-record endpoint (a refused batch's fallback) takes the same data.
	zs, _, err := p.state(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w := write{name: "_8443._tcp.example.com", typ: "TLSA", target: "3 1 1 " + tlsaDigest, ttl: autoTTL}
	if _, err := p.client.DNS.Records.New(ctx, dns.RecordNewParams{ZoneID: cf.F(zs[0].id), Body: newBody(w)}); err != nil {
		t.Fatalf("single-record create of a TLSA: %v", err)
	}
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'f' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}
