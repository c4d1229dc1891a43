package aws

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

// listedVersion is Records asked for the version of what it returns (provider.WithListedVersion).
func listedVersion(t *testing.T, p provider.Provider) (eps []*endpoint.Endpoint, version uint64, reported bool, err error) {
	t.Helper()
	ctx, listed := provider.WithListedVersion(ctxT(t))
	eps, err = p.Records(ctx)
	version, reported = listed.Version()
	return eps, version, reported, err
}

// Records reports the listing version of the record sets it returns, the one ListingVersion answers
// after it, also on the first listing, before which the version is unknown; a write moves it; a
// listing that leaves a zone out reports none (ListingVersion is unknown then too).
func TestRecordsReportsTheVersionOfWhatItReturns(t *testing.T) {
	staticCredentials(t)
	srv, url := emulator(t, route53emu.Options{})
	zs := seed(t, srv, ownedRecords("one.test", "a"), ownedRecords("two.test", "b"))
	p := newProvider(t, url, Config{})
	if _, ok := p.ListingVersion(); ok {
		t.Fatal("known before any listing")
	}
	_, v1, reported, err := listedVersion(t, p)
	if now, ok := p.ListingVersion(); err != nil || !reported || !ok || now != v1 {
		t.Fatalf("the first listing reported %d (reported %v), ListingVersion after it %d (known %v), %v", v1, reported, now, ok, err)
	}
	if err := p.ApplyChanges(ctxT(t), &plan.Changes{Create: []*endpoint.Endpoint{ep("x.one.test", "A", 300, "198.51.100.9")}}); err != nil {
		t.Fatal(err)
	}
	eps, v2, reported, err := listedVersion(t, p)
	if now, _ := p.ListingVersion(); err != nil || !reported || v2 == v1 || now != v2 || !strings.Contains(epNames(eps), "x.one.test") {
		t.Fatalf("the listing after a write reported %d (reported %v; was %d, ListingVersion %d): %s, %v", v2, reported, v1, now, epNames(eps), err)
	}
	if err := srv.AddFault(route53emu.Fault{Operation: "ListResourceRecordSets", ZoneID: zs[1].ID, Code: "AccessDenied"}); err != nil {
		t.Fatal(err)
	}
	p.Invalidate()
	_, v3, reported, err := listedVersion(t, p)
	if _, partial := provider.AsUnreadableZones(err); !partial || reported {
		t.Fatalf("a listing without two.test reported %d (reported %v), %v", v3, reported, err)
	}
}

// Issue 15 (the one-off full replan after start): the TXT registry's first listing of Route 53 is
// made before the provider knows its version. Pinned only by the version before and after it, that
// cache was never tied, the converging writes did not keep it tied, and the first resync after them
// converted the provider's whole cache again and built a new one (a new generation: the controller
// planned every name once more). Tied to the version Records reports, the start's listing and the
// converging writes are the last listing: resyncs after them list nothing, and the registry's cache is
// what a fresh registry folds from Route 53.
func TestTheStartsListingOfRoute53StaysTiedThroughTheConvergingWrites(t *testing.T) {
	s := newExactStack(t, exactOptions{})
	if err := s.reg.Refresh(ctxT(t)); err != nil { // the start's listing: the empty zone
		t.Fatal(err)
	}
	var creates []*endpoint.Endpoint
	for i := range 3 {
		creates = append(creates, ep(fmt.Sprintf("h%d.one.test", i), "A", 300, fmt.Sprintf("192.0.2.%d", i+1)).
			WithLabel(endpoint.ResourceLabelKey, fmt.Sprintf("ingress/default/h%d", i)))
	}
	if err := s.reg.ApplyChanges(ctxT(t), &plan.Changes{Create: creates}); err != nil {
		t.Fatal(err)
	}
	_, serial, mutations, err := s.reg.RecordsWithGeneration(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	s.srv.ClearCalls()
	for range 3 { // resyncs: the zone probe and a due Refresh
		if stale, err := s.reg.CheckZones(ctxT(t), 24*time.Hour); err != nil || len(stale) > 0 {
			t.Fatalf("CheckZones = %v, %v", stale, err)
		}
		if err := s.reg.Refresh(ctxT(t)); err != nil {
			t.Fatal(err)
		}
	}
	eps, s2, m2, err := s.reg.RecordsWithGeneration(ctxT(t))
	if n := s.c.count(); err != nil || n != 1 || s2 != serial || m2 != mutations {
		t.Fatalf("start, converging writes and 3 resyncs: %d listings of the provider's cache, generation %d/%d -> %d/%d, %v; "+
			"want 1 listing (the start's) and the writes' generation", n, serial, mutations, s2, m2, err)
	}
	if calls := s.srv.Counters().Calls; calls["ListResourceRecordSets"] != 0 {
		t.Fatalf("the resyncs listed Route 53: %v", calls)
	}
	if d := foldDiff(eps, s.fresh(t)); len(d) > 0 {
		t.Fatalf("the kept cache differs from a fresh registry's fold: %v", d)
	}
}

// writeAfterListing runs write once, inside Records, after the provider returned its records: a
// write that lands between the listing and the registry's question about the version after it.
type writeAfterListing struct {
	provider.Wrapped
	write func()
}

func (w *writeAfterListing) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	eps, err := w.Provider.Records(ctx)
	if f := w.write; f != nil {
		w.write = nil
		f()
	}
	return eps, err
}

// The version Route 53's provider reports with its records is trusted only while it still reports
// it: a write the registry did not make (another caller of the provider, as the webhook server's),
// landing right after the start's listing, moves the version; the registry's cache, which lacks the
// written set, is not tied to it, and the next resync lists and finds the set.
func TestAWriteRightAfterTheListingIsNotHiddenByTheTie(t *testing.T) {
	s := newVersionStack(t, ownedRecords("one.test", "a"))
	s.c.Provider = &writeAfterListing{Wrapped: provider.Wrapped{Provider: s.p}, write: func() {
		if err := s.p.ApplyChanges(context.Background(), &plan.Changes{Create: []*endpoint.Endpoint{ep("late.one.test", "A", 300, "198.51.100.7")}}); err != nil {
			t.Error(err)
		}
	}}
	if got, err := s.records(t); err != nil || strings.Contains(got, "late.one.test") {
		t.Fatalf("the start's listing: %s, %v", got, err)
	}
	s.resync(t, 24*time.Hour)
	if got, err := s.records(t); err != nil || !strings.Contains(got, "late.one.test=198.51.100.7") || s.c.count() != 2 {
		t.Fatalf("the resync after the write: %d listings, records %s, %v; want 2 and late.one.test", s.c.count(), got, err)
	}
	s.idle(t, "after the relisting")
}
