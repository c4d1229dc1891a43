package aws

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

// pagedStack is the Route 53 provider over the emulator with one zone of 400 hosts (802 record
// sets: three list pages), listed once.
type pagedStack struct {
	srv  *route53emu.Server
	zone route53emu.SeededZone
	p    *Provider
	url  string
}

func newPagedStack(t *testing.T) *pagedStack {
	t.Helper()
	staticCredentials(t)
	srv, url := emulator(t, route53emu.Options{})
	s := &pagedStack{srv: srv, zone: seed(t, srv, ownedZone("paged.test", 400))[0], p: newProvider(t, url, Config{}), url: url}
	if _, err := s.p.Records(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	return s
}

// relist is CheckZones with the relisting due; it checks that every page was fetched from Route 53
// and returns the zones named and how many pages were decoded and skipped.
func (s *pagedStack) relist(t *testing.T) (stale []string, decoded, skipped int) {
	t.Helper()
	s.srv.ClearCalls()
	d0, s0 := s.p.relists.decodedPages, s.p.relists.skippedPages
	stale, err := s.p.CheckZones(ctxT(t), time.Nanosecond)
	if err != nil {
		t.Fatalf("CheckZones: %v", err)
	}
	if n := s.srv.Counters().Calls["ListResourceRecordSets"]; n < 3 {
		t.Fatalf("the relisting fetched %d pages, want every page (3 or more)", n)
	}
	return stale, s.p.relists.decodedPages - d0, s.p.relists.skippedPages - s0
}

// behindOurBack sends one change to the zone through the SDK, not through the provider.
func (s *pagedStack) behindOurBack(t *testing.T, action r53types.ChangeAction, rr *r53types.ResourceRecordSet) {
	t.Helper()
	_, err := s.p.accounts[0].api.ChangeResourceRecordSets(context.Background(), &route53.ChangeResourceRecordSetsInput{
		HostedZoneId: ptr(s.zone.ID), ChangeBatch: &r53types.ChangeBatch{Changes: []r53types.Change{{Action: action, ResourceRecordSet: rr}}}})
	if err != nil {
		t.Fatal(err)
	}
}

// wantFresh fails unless Records gives what a fresh provider lists.
func (s *pagedStack) wantFresh(t *testing.T, when string) {
	t.Helper()
	if got, want := records(t, s.p), records(t, newProvider(t, s.url, Config{})); got != want {
		t.Fatalf("Records %s differs from a fresh provider's listing:\n%s\nwant\n%s", when, got, want)
	}
}

// Issue 15 (idle cost): a relisting whose pages have the bytes the last relisting read, while the
// cache still holds what that relisting found, decodes no record set; every page is still fetched,
// and a change behind our back anywhere in the zone (an in-place edit too, which keeps the record set
// count) is found by the next relisting as before. So is a change that puts back, behind our back,
// what the last relisting read after we wrote something else there: the pages then match the old
// digests, but the cache holds our write, so they are not trusted.
func TestRelistingSkipsDecodingUnchangedPagesAndStillFindsEdits(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(t *testing.T, s *pagedStack)
	}{
		{"a value changed on the first page", func(t *testing.T, s *pagedStack) {
			s.behindOurBack(t, r53types.ChangeActionUpsert, plainA("app0.paged.test", 300, "198.51.100.1"))
		}},
		{"a value changed on a middle page", func(t *testing.T, s *pagedStack) {
			s.behindOurBack(t, r53types.ChangeActionUpsert, plainA("app250.paged.test", 300, "198.51.100.2"))
		}},
		{"a TTL changed on the last page", func(t *testing.T, s *pagedStack) {
			s.behindOurBack(t, r53types.ChangeActionUpsert, plainA("app99.paged.test", 60, "10.100.0.99"))
		}},
		{"a record set added", func(t *testing.T, s *pagedStack) {
			s.behindOurBack(t, r53types.ChangeActionCreate, plainA("zzz.paged.test", 300, "198.51.100.3"))
		}},
		{"a record set deleted", func(t *testing.T, s *pagedStack) {
			s.behindOurBack(t, r53types.ChangeActionDelete, plainA("app7.paged.test", 300, "10.100.0.7"))
		}},
		{"our write undone behind our back", func(t *testing.T, s *pagedStack) {
			if err := s.p.ApplyChanges(ctxT(t), &plan.Changes{
				UpdateOld: []*endpoint.Endpoint{ep("app3.paged.test", "A", 300, "10.100.0.3")},
				UpdateNew: []*endpoint.Endpoint{ep("app3.paged.test", "A", 300, "198.51.100.4")}}); err != nil {
				t.Fatal(err)
			}
			s.behindOurBack(t, r53types.ChangeActionUpsert, plainA("app3.paged.test", 300, "10.100.0.3"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newPagedStack(t)
			if stale, decoded, skipped := s.relist(t); len(stale) > 0 || decoded != 3 || skipped != 0 {
				t.Fatalf("first relisting: named %v, decoded %d pages, skipped %d; want none, 3, 0", stale, decoded, skipped)
			}
			v, _ := s.p.ListingVersion()
			if stale, decoded, skipped := s.relist(t); len(stale) > 0 || decoded != 0 || skipped != 3 {
				t.Fatalf("relisting of the unchanged zone: named %v, decoded %d pages, skipped %d; want none, 0, 3", stale, decoded, skipped)
			}
			if v2, ok := s.p.ListingVersion(); !ok || v2 != v {
				t.Fatalf("relisting of the unchanged zone moved the version %d -> %d (%v)", v, v2, ok)
			}
			s.wantFresh(t, "after the skipped relisting")

			tc.edit(t, s)
			if stale, _, _ := s.relist(t); fmt.Sprint(stale) != "[paged.test]" {
				t.Fatalf("the relisting after the edit named %v, want [paged.test]", stale)
			}
			s.wantFresh(t, "after the edit's relisting")
			// What that relisting read is trusted by the next one.
			if stale, decoded, skipped := s.relist(t); len(stale) > 0 || decoded != 0 || skipped < 3 {
				t.Fatalf("relisting after the edit's: named %v, decoded %d pages, skipped %d; want none, 0, all", stale, decoded, skipped)
			}
		})
	}
}

// A write through the provider moves the listing version, so the relisting after it decodes every
// page again (and finds the zone holds what the patched cache holds); the one after that skips again.
func TestRelistingAfterOurWriteDecodesAgain(t *testing.T) {
	s := newPagedStack(t)
	s.relist(t)
	if err := s.p.ApplyChanges(ctxT(t), &plan.Changes{Create: []*endpoint.Endpoint{ep("new.paged.test", "A", 300, "198.51.100.9")}}); err != nil {
		t.Fatal(err)
	}
	v, _ := s.p.ListingVersion()
	if stale, decoded, skipped := s.relist(t); len(stale) > 0 || decoded < 3 || skipped != 0 {
		t.Fatalf("relisting after our write: named %v, decoded %d pages, skipped %d; want none, all, 0", stale, decoded, skipped)
	}
	if v2, _ := s.p.ListingVersion(); v2 != v {
		t.Fatalf("the relisting after our write moved the version %d -> %d", v, v2)
	}
	if stale, decoded, skipped := s.relist(t); len(stale) > 0 || decoded != 0 || skipped < 3 {
		t.Fatalf("the next relisting: named %v, decoded %d pages, skipped %d; want none, 0, all", stale, decoded, skipped)
	}
	s.wantFresh(t, "after the relistings")
}

// withoutRecordSets keeps everything but the record sets, and refuses a body without the element.
func TestWithoutRecordSets(t *testing.T) {
	body := `<?xml version="1.0"?><ListResourceRecordSetsResponse xmlns="x"><ResourceRecordSets><ResourceRecordSet><Name>a.</Name></ResourceRecordSet></ResourceRecordSets><IsTruncated>true</IsTruncated><NextRecordName>b.</NextRecordName></ListResourceRecordSetsResponse>`
	got, ok := withoutRecordSets([]byte(body))
	want := `<?xml version="1.0"?><ListResourceRecordSetsResponse xmlns="x"><ResourceRecordSets></ResourceRecordSets><IsTruncated>true</IsTruncated><NextRecordName>b.</NextRecordName></ListResourceRecordSetsResponse>`
	if !ok || string(got) != want {
		t.Fatalf("withoutRecordSets = %q, %v; want %q", got, ok, want)
	}
	for _, b := range []string{`<ListResourceRecordSetsResponse><ResourceRecordSets/></ListResourceRecordSetsResponse>`, `</ResourceRecordSets><ResourceRecordSets>`, ``} {
		if _, ok := withoutRecordSets([]byte(b)); ok {
			t.Fatalf("withoutRecordSets(%q) cut a body without a well-formed element", b)
		}
	}
}
