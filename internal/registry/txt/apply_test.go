package txt

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

func TestCreateStampsOwnerAndLeavesCallerAlone(t *testing.T) {
	_, p := newZone()
	r := mustNew(t, p, Config{OwnerID: "cluster-a"})
	in := endpoint.New("nginx.example.com", "A", "203.0.113.10").WithLabel("resource", "service/default/nginx")
	if err := r.ApplyChanges(context.Background(), &plan.Changes{Create: []*endpoint.Endpoint{in}}); err != nil {
		t.Fatal(err)
	}
	if in.Owner() != "" {
		t.Fatal("the caller's endpoint was modified")
	}
	sent := p.last()
	if len(p.applied) != 1 || len(sent.Create) != 2 {
		t.Fatalf("want record and TXT in one call, got %d calls, last %+v", len(p.applied), sent)
	}
	if sent.Create[0].Owner() != "cluster-a" || sent.Create[1].DNSName != "a-nginx.example.com" {
		t.Fatalf("sent %v", sent.Create)
	}
}

// An existing TXT is not re-created: with the same value nothing is sent for it; a stale value of ours
// is rewritten; someone else's TXT is left alone.
func TestCreateWithExistingTXT(t *testing.T) {
	tests := []struct {
		name, value string
		wantTXT     provider.Action // "" = no TXT change
	}{
		{"same value", nginxValue, ""},
		{"ours, stale", `"heritage=external-dns,external-dns/owner=cluster-a,external-dns/resource=service/old/nginx"`, provider.ActionUpdate},
		{"someone else's", `"heritage=external-dns,external-dns/owner=cluster-b"`, ""},
		{"ordinary TXT at that name", `"hello"`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mem, p := newZone()
			seed(t, mem, txtRecord("a-nginx.example.com", tt.value))
			cfg := Config{OwnerID: "cluster-a"}
			r := mustNew(t, p, cfg)
			mustRecords(t, r)
			in := endpoint.New("nginx.example.com", "A", "203.0.113.10").WithLabel("resource", "service/default/nginx")
			if err := r.ApplyChanges(context.Background(), &plan.Changes{Create: []*endpoint.Endpoint{in}}); err != nil {
				t.Fatal(err)
			}
			sent := p.last()
			var got provider.Action
			if len(sent.Create) > 1 {
				got = provider.ActionCreate
			}
			if len(sent.UpdateNew) > 0 {
				got = provider.ActionUpdate
			}
			if got != tt.wantTXT {
				t.Fatalf("TXT change %q, want %q: %+v", got, tt.wantTXT, sent)
			}
			assertCacheIsFresh(t, r, mem, cfg)
		})
	}
}

func TestUpdateAndDeleteCarryTheirTXT(t *testing.T) {
	mem, p := newZone()
	cfg := Config{OwnerID: "cluster-a"}
	r := mustNew(t, p, cfg)
	ctx := context.Background()
	create := endpoint.New("nginx.example.com", "A", "203.0.113.10").WithLabel("resource", "service/default/nginx")
	if err := r.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{create}}); err != nil {
		t.Fatal(err)
	}

	cur := find(mustRecords(t, r), "nginx.example.com", "A")
	next := cur.DeepCopy()
	next.Targets = endpoint.Targets{"203.0.113.99"}
	next.Labels["resource"] = "service/default/nginx2"
	if err := r.ApplyChanges(ctx, &plan.Changes{UpdateOld: []*endpoint.Endpoint{cur}, UpdateNew: []*endpoint.Endpoint{next}}); err != nil {
		t.Fatal(err)
	}
	sent := p.last()
	if len(sent.UpdateNew) != 2 || sent.UpdateOld[1].Targets[0] != nginxValue ||
		!strings.Contains(sent.UpdateNew[1].Targets[0], "resource=service/default/nginx2") {
		t.Fatalf("update must rewrite the TXT next to the record: %+v", sent)
	}
	assertCacheIsFresh(t, r, mem, cfg)

	// An update that leaves the labels alone does not touch the TXT.
	cur = find(mustRecords(t, r), "nginx.example.com", "A")
	next = cur.DeepCopy()
	next.Targets = endpoint.Targets{"203.0.113.100"}
	if err := r.ApplyChanges(ctx, &plan.Changes{UpdateOld: []*endpoint.Endpoint{cur}, UpdateNew: []*endpoint.Endpoint{next}}); err != nil {
		t.Fatal(err)
	}
	if n := len(p.last().UpdateNew); n != 1 {
		t.Fatalf("want only the record updated, got %d updates", n)
	}

	cur = find(mustRecords(t, r), "nginx.example.com", "A")
	if err := r.ApplyChanges(ctx, &plan.Changes{Delete: []*endpoint.Endpoint{cur}}); err != nil {
		t.Fatal(err)
	}
	if raw := providerRecords(t, mem); len(raw) != 0 {
		t.Fatalf("record and TXT must both be gone: %v", raw)
	}
	assertCacheIsFresh(t, r, mem, cfg)
}

// A record owned through a legacy TXT is flagged; updating it as flagged writes the new-format TXT, and
// the flag disappears. The force-update property never reaches the provider.
func TestForceUpdateMigratesLegacyTXT(t *testing.T) {
	mem, p := newZone()
	seed(t, mem, endpoint.New("nginx.example.com", "A", "203.0.113.10"), txtRecord("nginx.example.com", nginxValue))
	cfg := Config{OwnerID: "cluster-a"}
	r := mustNew(t, p, cfg)
	cur := find(mustRecords(t, r), "nginx.example.com", "A")
	if _, ok := cur.GetProviderSpecific(ForceUpdateProperty); !ok {
		t.Fatal("legacy-owned record not flagged")
	}
	next := cur.DeepCopy()
	next.DeleteProviderSpecific(ForceUpdateProperty)
	if err := r.ApplyChanges(context.Background(), &plan.Changes{UpdateOld: []*endpoint.Endpoint{cur}, UpdateNew: []*endpoint.Endpoint{next}}); err != nil {
		t.Fatal(err)
	}
	sent := p.last()
	for _, list := range [][]*endpoint.Endpoint{sent.Create, sent.UpdateOld, sent.UpdateNew} {
		for _, e := range list {
			if _, ok := e.GetProviderSpecific(ForceUpdateProperty); ok {
				t.Fatalf("%s sent with %s", e.DNSName, ForceUpdateProperty)
			}
		}
	}
	if len(sent.Create) != 1 || sent.Create[0].DNSName != "a-nginx.example.com" || sent.Create[0].Targets[0] != nginxValue {
		t.Fatalf("want the new-format TXT created: %+v", sent)
	}
	e := find(mustRecords(t, mustNew(t, mem, cfg)), "nginx.example.com", "A")
	if _, ok := e.GetProviderSpecific(ForceUpdateProperty); ok || e.Owner() != "cluster-a" {
		t.Fatalf("after migration: %v %v", e.Labels, e.ProviderSpecific)
	}
	assertCacheIsFresh(t, r, mem, cfg)
}

// The apex TXT a-example.com falls outside the zone (external-dns #449): the provider creates the
// record and rejects its TXT. The error names the caller's record; the record reads back unowned from
// the cache exactly as from a fresh listing.
func TestRejectedTXTIsReportedAgainstItsRecord(t *testing.T) {
	mem, p := newZone()
	cfg := Config{OwnerID: "cluster-a"}
	r := mustNew(t, p, cfg)
	apex := endpoint.New("example.com", "A", "203.0.113.1").WithLabel("resource", "service/default/apex")
	ok := endpoint.New("nginx.example.com", "A", "203.0.113.10").WithLabel("resource", "service/default/nginx")
	err := r.ApplyChanges(context.Background(), &plan.Changes{Create: []*endpoint.Endpoint{apex, ok}})
	ae, isApply := provider.AsApplyError(err)
	if !isApply || len(ae.Rejected) != 1 {
		t.Fatalf("want one rejected change, got %v", err)
	}
	rc := ae.Rejected[0]
	if rc.Endpoint != apex || rc.Action != provider.ActionCreate || rc.Endpoint.Resource() != "service/default/apex" {
		t.Fatalf("rejection must name the caller's record: %+v", rc)
	}
	if !strings.Contains(rc.Err.Error(), "ownership record a-example.com") {
		t.Fatalf("error should say which TXT failed: %v", rc.Err)
	}
	cached, _ := r.CachedRecords()
	if e := find(cached, "example.com", "A"); e == nil || e.Owner() != "" {
		t.Fatalf("apex record must be cached as created and unowned: %v", e)
	}
	if e := find(cached, "nginx.example.com", "A"); e == nil || e.Owner() != "cluster-a" {
		t.Fatalf("nginx must be cached as ours: %v", e)
	}
	assertCacheIsFresh(t, r, mem, cfg)
}

// The record is rejected (a CNAME beside an existing A) while its TXT goes in.
func TestRejectedRecordWithAcceptedTXT(t *testing.T) {
	mem, p := newZone()
	seed(t, mem, endpoint.New("www.example.com", "A", "203.0.113.5"))
	cfg := Config{OwnerID: "cluster-a"}
	r := mustNew(t, p, cfg)
	cname := endpoint.New("www.example.com", "CNAME", "lb-1.example.net").WithLabel("resource", "ingress/default/web")
	err := r.ApplyChanges(context.Background(), &plan.Changes{Create: []*endpoint.Endpoint{cname}})
	ae, ok := provider.AsApplyError(err)
	if !ok || len(ae.Rejected) != 1 || ae.Rejected[0].Endpoint != cname {
		t.Fatalf("got %v", err)
	}
	if find(providerRecords(t, mem), "cname-www.example.com", "TXT") == nil {
		t.Fatal("the TXT should have been applied")
	}
	cached, _ := r.CachedRecords()
	if find(cached, "www.example.com", "CNAME") != nil {
		t.Fatal("the rejected record must not be in the cache")
	}
	assertCacheIsFresh(t, r, mem, cfg)
}

// rejectingProvider rejects every change whose name contains a marker, and hands back copies, not the
// endpoints it got, like a provider that decoded the changes from the wire.
type rejectingProvider struct {
	provider.Provider
	marker string
}

func (p *rejectingProvider) ApplyChanges(ctx context.Context, c *plan.Changes) error {
	var rejected []provider.RejectedChange
	keep := &plan.Changes{}
	reject := func(a provider.Action, e *endpoint.Endpoint) bool {
		if strings.Contains(e.DNSName, p.marker) {
			rejected = append(rejected, provider.RejectedChange{Action: a, Endpoint: e.DeepCopy(), Err: errors.New("refused")})
			return true
		}
		return false
	}
	for _, e := range c.Create {
		if !reject(provider.ActionCreate, e) {
			keep.Create = append(keep.Create, e)
		}
	}
	for i, e := range c.UpdateNew {
		if !reject(provider.ActionUpdate, e) {
			keep.UpdateOld = append(keep.UpdateOld, c.UpdateOld[i])
			keep.UpdateNew = append(keep.UpdateNew, e)
		}
	}
	for _, e := range c.Delete {
		if !reject(provider.ActionDelete, e) {
			keep.Delete = append(keep.Delete, e)
		}
	}
	if err := p.Provider.ApplyChanges(ctx, keep); err != nil {
		return err
	}
	if len(rejected) > 0 {
		return &provider.ApplyError{Rejected: rejected}
	}
	return nil
}

func TestRejectionsMatchedByKey(t *testing.T) {
	mem, _ := newZone()
	cfg := Config{OwnerID: "cluster-a"}
	r := mustNew(t, &rejectingProvider{Provider: mem, marker: "a-bad"}, cfg)
	bad := endpoint.New("bad.example.com", "A", "203.0.113.1").WithLabel("resource", "service/default/bad")
	good := endpoint.New("good.example.com", "A", "203.0.113.2").WithLabel("resource", "service/default/good")
	err := r.ApplyChanges(context.Background(), &plan.Changes{Create: []*endpoint.Endpoint{bad, good}})
	ae, ok := provider.AsApplyError(err)
	if !ok || len(ae.Rejected) != 1 || ae.Rejected[0].Endpoint != bad {
		t.Fatalf("got %v", err)
	}
	assertCacheIsFresh(t, r, mem, cfg)
}

type failingProvider struct{ provider.Provider }

func (failingProvider) ApplyChanges(context.Context, *plan.Changes) error {
	return errors.New("connection reset")
}

func TestOtherErrorsInvalidateTheCache(t *testing.T) {
	mem, _ := newZone()
	r := mustNew(t, failingProvider{mem}, Config{OwnerID: "cluster-a"})
	mustRecords(t, r)
	err := r.ApplyChanges(context.Background(), &plan.Changes{Create: []*endpoint.Endpoint{endpoint.New("x.example.com", "A", "203.0.113.1")}})
	if err == nil || err.Error() != "connection reset" {
		t.Fatalf("got %v", err)
	}
	if _, ok := r.CachedRecords(); ok {
		t.Fatal("after an unknown outcome the cache must be dropped")
	}
}

func TestMismatchedUpdatesAreRefused(t *testing.T) {
	_, p := newZone()
	r := mustNew(t, p, Config{OwnerID: "cluster-a"})
	err := r.ApplyChanges(context.Background(), &plan.Changes{UpdateNew: []*endpoint.Endpoint{endpoint.New("x.example.com", "A", "203.0.113.1")}})
	if err == nil || len(p.applied) != 0 {
		t.Fatalf("got %v", err)
	}
}
