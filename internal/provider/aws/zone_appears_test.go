package aws

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"

	"github.com/zonekeeper/zonekeeper/internal/controller"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/registry/txt"
	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

// zoneStack is one zonekeeper over the emulator: a static source, the TXT registry, the provider and
// the controller, driven by hand (idleResync is what the --interval tick does).
type zoneStack struct {
	p    *Provider
	reg  *txt.Registry
	ctrl *controller.Controller
}

func newZoneStack(t *testing.T, url string, cfg Config, eps ...*endpoint.Endpoint) *zoneStack {
	t.Helper()
	p := newProvider(t, url, cfg)
	reg, err := txt.New(p, txt.Config{OwnerID: "zones", CacheInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range eps {
		e.WithLabel(endpoint.ResourceLabelKey, fmt.Sprintf("service/default/s%d", i))
	}
	filter, _ := plan.NewDomainFilter(nil, nil, "", "")
	ctrl := controller.New(&staticSource{eps: eps}, reg, controller.Settings{OwnerID: "zones", Policy: plan.PolicySync, DomainFilter: filter, Interval: time.Minute},
		slog.New(slog.DiscardHandler))
	return &zoneStack{p: p, reg: reg, ctrl: ctrl}
}

// idleResync is the zone probe (a relisting period far away) and a reconcile.
func (s *zoneStack) idleResync(t *testing.T) (stale []string) {
	t.Helper()
	stale, err := s.reg.CheckZones(ctxT(t), 24*time.Hour)
	if err != nil {
		t.Fatalf("CheckZones: %v", err)
	}
	if _, err := s.ctrl.RunOnce(ctxT(t)); err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	return stale
}

// deleteZone empties a zone of all but its SOA and NS and deletes it, through the SDK.
func deleteZone(t *testing.T, api *route53.Client, id string) {
	t.Helper()
	out, err := api.ListResourceRecordSets(context.Background(), &route53.ListResourceRecordSetsInput{HostedZoneId: ptr(id)})
	if err != nil {
		t.Fatal(err)
	}
	var changes []r53types.Change
	for _, rs := range out.ResourceRecordSets {
		if rs.Type != r53types.RRTypeSoa && rs.Type != r53types.RRTypeNs {
			changes = append(changes, r53types.Change{Action: r53types.ChangeActionDelete, ResourceRecordSet: &rs})
		}
	}
	if len(changes) > 0 {
		if _, err := api.ChangeResourceRecordSets(context.Background(), &route53.ChangeResourceRecordSetsInput{HostedZoneId: ptr(id), ChangeBatch: &r53types.ChangeBatch{Changes: changes}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := api.DeleteHostedZone(context.Background(), &route53.DeleteHostedZoneInput{Id: ptr(id)}); err != nil {
		t.Fatal(err)
	}
}

func createZone(t *testing.T, p *Provider, name string) string {
	t.Helper()
	out, err := p.accounts[0].api.CreateHostedZone(context.Background(), &route53.CreateHostedZoneInput{Name: ptr(name), CallerReference: ptr(name + "-ref")})
	if err != nil {
		t.Fatal(err)
	}
	return bareZoneID(deref(out.HostedZone.Id))
}

// Issue 15 item 4: the idle probe of an account whose managed zones fill fewer ListHostedZones pages
// than there are zones is that listing; it names every zone of the account, so a hosted zone created
// after the start is seen there, and the same resync writes its records — without
// --aws-zones-cache-duration and without another call. Before, the zone waited for the full
// relisting (hours at many zones). A zone deleted is seen the same way and left out, not listed.
func TestIdleProbePicksUpANewZone(t *testing.T) {
	staticCredentials(t)
	srv, url := emulator(t, route53emu.Options{})
	seed(t, srv, route53emu.SeedZone{Name: "one.test"}, route53emu.SeedZone{Name: "two.test"})
	s := newZoneStack(t, url, Config{},
		ep("a.one.test", "A", 300, "192.0.2.1"), ep("b.two.test", "A", 300, "192.0.2.2"), ep("c.three.test", "A", 300, "192.0.2.3"))
	if _, err := s.ctrl.RunOnce(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if len(dump(srv, "one.test")) != 2 || len(dump(srv, "two.test")) != 2 {
		t.Fatalf("first reconcile: one.test %v, two.test %v", dump(srv, "one.test"), dump(srv, "two.test"))
	}

	zid := createZone(t, s.p, "three.test")
	// The first reconcile's rejection of c.three.test (no zone) is retried after a second; an idle
	// resync comes a whole --interval later.
	time.Sleep(1100 * time.Millisecond)
	srv.ClearCalls()
	if stale := s.idleResync(t); fmt.Sprint(stale) != "[three.test]" {
		t.Fatalf("the resync after three.test was created found %v stale, want [three.test]", stale)
	}
	if got := dump(srv, "three.test"); len(got) != 2 {
		t.Fatalf("one idle resync after three.test was created it holds %v, want c.three.test's A and TXT", got)
	}
	c := srv.Counters().Calls
	if c["ListHostedZones"] != 1 || c["GetHostedZone"] != 0 || c["ListResourceRecordSets"] != 1 || c["ChangeResourceRecordSets"] != 1 {
		t.Fatalf("calls %v; want the probe (1 ListHostedZones), the new zone's one page and one change", c)
	}

	// Gone: deleted behind our back, the zone leaves the probe's answer and is not listed again.
	deleteZone(t, s.p.accounts[0].api, zid)
	srv.ClearCalls()
	if stale := s.idleResync(t); fmt.Sprint(stale) != "[three.test]" {
		t.Fatalf("the resync after three.test was deleted found %v, want [three.test]", stale)
	}
	if c := srv.Counters().Calls; c["ListHostedZones"] != 1 || c["ListResourceRecordSets"] != 0 || c["ChangeResourceRecordSets"] != 0 {
		t.Fatalf("calls after three.test was deleted %v; want the probe alone", c)
	}
}

// A zone that appears in the probe's answer is taken only if the filters select it, as at the zone
// listing: --zone-id-filter, --domain-filter, --aws-zone-type, --aws-zone-tags. Tags are not in the
// answer: a zone that passes the other filters costs one ListTagsForResources, once.
func TestIdleProbeKeepsToTheZoneFilters(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cfg      Config
		outside  route53emu.SeedZone
		inside   route53emu.SeedZone
		tagCalls int // ListTagsForResources for each zone that appeared
	}{
		{name: "zone-id-filter", cfg: Config{ZoneIDFilter: []string{"ZONEONE", "/hostedzone/ZONETWO", "ZONEIN"}},
			outside: route53emu.SeedZone{ID: "ZONEOUT", Name: "out.test"}, inside: route53emu.SeedZone{ID: "ZONEIN", Name: "in.test"}},
		{name: "domain-filter", cfg: Config{DomainFilter: []string{"one.test", "two.test", "in.test"}},
			outside: route53emu.SeedZone{Name: "out.test"}, inside: route53emu.SeedZone{Name: "in.test"}},
		{name: "zone-type", cfg: Config{ZoneType: "public"},
			outside: route53emu.SeedZone{Name: "out.test", Private: true, VPCID: "vpc-1", VPCRegion: "us-east-1"}, inside: route53emu.SeedZone{Name: "in.test"}},
		{name: "zone-tags", cfg: Config{ZoneTags: []string{"team=a"}}, tagCalls: 1,
			outside: route53emu.SeedZone{Name: "out.test", Tags: map[string]string{"team": "b"}}, inside: route53emu.SeedZone{Name: "in.test", Tags: map[string]string{"team": "a"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			staticCredentials(t)
			srv, url := emulator(t, route53emu.Options{})
			team := map[string]string{"team": "a"}
			seed(t, srv, route53emu.SeedZone{ID: "ZONEONE", Name: "one.test", Tags: team}, route53emu.SeedZone{ID: "ZONETWO", Name: "two.test", Tags: team})
			p := newProvider(t, url, tc.cfg)
			if _, err := p.Records(ctxT(t)); err != nil {
				t.Fatal(err)
			}
			probe := func(what string, wantStale string, wantTagCalls int) {
				t.Helper()
				srv.ClearCalls()
				stale, err := p.CheckZones(ctxT(t), 24*time.Hour)
				if err != nil || fmt.Sprint(stale) != wantStale {
					t.Fatalf("%s: CheckZones = %v, %v; want %s", what, stale, err, wantStale)
				}
				if _, err := p.Records(ctxT(t)); err != nil {
					t.Fatal(err)
				}
				c := srv.Counters().Calls
				wantPages := 0
				if wantStale != "[]" {
					wantPages = 1
				}
				if c["ListHostedZones"] != 1 || c["ListTagsForResources"] != wantTagCalls || c["ListResourceRecordSets"] != wantPages || c["GetHostedZone"] != 0 {
					t.Fatalf("%s: calls %v; want 1 ListHostedZones, %d ListTagsForResources, %d list pages", what, c, wantTagCalls, wantPages)
				}
			}
			seed(t, srv, tc.outside)
			probe("a zone outside the filters appeared", "[]", tc.tagCalls)
			probe("the next probe", "[]", 0)
			seed(t, srv, tc.inside)
			probe("a zone the filters select appeared", "[in.test]", tc.tagCalls)
			if zoneNames(p.zoneList) != "in.test, one.test, two.test" {
				t.Fatalf("zone list %v", zoneNames(p.zoneList))
			}
		})
	}
}
