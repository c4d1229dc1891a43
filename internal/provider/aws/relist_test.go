package aws

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

// relistStack is the Route 53 provider over the emulator, with one.test holding plain sets and their
// ownership TXT, two weighted sets and an alias, and two.test plain sets.
type relistStack struct {
	srv   *route53emu.Server
	zones []route53emu.SeededZone
	p     *Provider
}

func newRelistStack(t *testing.T) *relistStack {
	t.Helper()
	staticCredentials(t)
	srv, url := emulator(t, route53emu.Options{})
	s := &relistStack{srv: srv, zones: seed(t, srv, ownedRecords("one.test", "a", "b"), ownedRecords("two.test", "c")), p: newProvider(t, url, Config{})}
	s.change(t, r53types.ChangeActionCreate, weighted("w.one.test", "blue", 10, "192.0.2.50"))
	s.change(t, r53types.ChangeActionCreate, weighted("w.one.test", "green", 20, "192.0.2.51"))
	s.change(t, r53types.ChangeActionCreate, aliasTo("al.one.test", "lb-1.us-east-1.elb.amazonaws.com.", false))
	if _, err := s.p.Records(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	return s
}

// change sends one change to one.test through the SDK, behind the provider's back.
func (s *relistStack) change(t *testing.T, action r53types.ChangeAction, rr *r53types.ResourceRecordSet) {
	t.Helper()
	s.changes(t, r53types.Change{Action: action, ResourceRecordSet: rr})
}

func (s *relistStack) changes(t *testing.T, changes ...r53types.Change) {
	t.Helper()
	_, err := s.p.accounts[0].api.ChangeResourceRecordSets(context.Background(), &route53.ChangeResourceRecordSetsInput{
		HostedZoneId: ptr(s.zones[0].ID), ChangeBatch: &r53types.ChangeBatch{Changes: changes}})
	if err != nil {
		t.Fatal(err)
	}
}

// relist is CheckZones with the relisting due; it fails unless both zones were listed again.
func (s *relistStack) relist(t *testing.T) []string {
	t.Helper()
	s.srv.ClearCalls()
	stale, err := s.p.CheckZones(ctxT(t), time.Nanosecond)
	if err != nil {
		t.Fatalf("CheckZones: %v", err)
	}
	if n := s.srv.Counters().Calls["ListResourceRecordSets"]; n != 2 {
		t.Fatalf("the relisting listed %d pages, want 2 (one a zone)", n)
	}
	return stale
}

// version is the listing version, which must be known.
func (s *relistStack) version(t *testing.T) uint64 {
	t.Helper()
	v, ok := s.p.ListingVersion()
	if !ok {
		t.Fatal("the listing version is unknown")
	}
	return v
}

// cachedContents are the zones' cached contents objects.
func (s *relistStack) cachedContents() []*zoneContents {
	s.p.mu.Lock()
	defer s.p.mu.Unlock()
	return []*zoneContents{s.p.contents[s.zones[0].ID], s.p.contents[s.zones[1].ID]}
}

// records is Records of p, one endpoint a line, sorted: every field Records reports.
func records(t *testing.T, p *Provider) string {
	t.Helper()
	eps, err := p.Records(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(eps))
	for i, e := range eps {
		out[i] = e.String()
	}
	slices.Sort(out)
	return strings.Join(out, "\n")
}

func weighted(name, setID string, weight int64, value string) *r53types.ResourceRecordSet {
	return &r53types.ResourceRecordSet{Name: ptr(name), Type: r53types.RRTypeA, SetIdentifier: ptr(setID), Weight: ptr(weight),
		TTL: ptr(int64(300)), ResourceRecords: []r53types.ResourceRecord{{Value: ptr(value)}}}
}

func aliasTo(name, target string, evaluate bool) *r53types.ResourceRecordSet {
	return &r53types.ResourceRecordSet{Name: ptr(name), Type: r53types.RRTypeA, AliasTarget: &r53types.AliasTarget{
		DNSName: ptr(target), HostedZoneId: ptr("Z35SXDOTRQ7X7K"), EvaluateTargetHealth: evaluate}}
}

func plainA(name string, ttl int64, vs ...string) *r53types.ResourceRecordSet {
	rr := &r53types.ResourceRecordSet{Name: ptr(name), Type: r53types.RRTypeA, TTL: ptr(ttl)}
	for _, v := range vs {
		rr.ResourceRecords = append(rr.ResourceRecords, r53types.ResourceRecord{Value: ptr(v)})
	}
	return rr
}

// Issue 15 (idle cost): the paced full relisting of zones that hold what is cached keeps the listing
// version and each zone's cached contents, so nothing downstream is rebuilt; so does a relisting after
// writes through the provider, whose patched cache holds the sets in another order, with holes.
func TestRelistingThatFindsTheSameSetsKeepsTheVersion(t *testing.T) {
	s := newRelistStack(t)
	v, cached, want := s.version(t), s.cachedContents(), records(t, s.p)
	for i := range 2 {
		if stale := s.relist(t); len(stale) > 0 {
			t.Fatalf("relisting %d of unchanged zones named %v", i, stale)
		}
		if v2 := s.version(t); v2 != v {
			t.Fatalf("relisting %d of unchanged zones moved the version %d -> %d", i, v, v2)
		}
		if got := s.cachedContents(); got[0] != cached[0] || got[1] != cached[1] {
			t.Fatalf("relisting %d of unchanged zones replaced the cached contents", i)
		}
	}
	if got := records(t, s.p); got != want {
		t.Fatalf("Records after the relistings:\n%s\nwant\n%s", got, want)
	}

	err := s.p.ApplyChanges(ctxT(t), &plan.Changes{
		Create: []*endpoint.Endpoint{ep("new.one.test", "A", 300, "198.51.100.1")},
		Delete: []*endpoint.Endpoint{ep("a.one.test", "A", 300, "192.0.2.1")}})
	if err != nil {
		t.Fatal(err)
	}
	v = s.version(t)
	if stale := s.relist(t); len(stale) > 0 {
		t.Fatalf("the relisting after a write through the provider named %v", stale)
	}
	if v2 := s.version(t); v2 != v {
		t.Fatalf("the relisting after a write through the provider moved the version %d -> %d", v, v2)
	}
}

// Every kind of edit made behind the provider's back, including those that keep the zone's record set
// count (which the probe misses), is found by the next relisting: the zone is named, its contents
// replaced, the version moves, and Records gives what a fresh provider lists. The other zone keeps its
// contents.
func TestRelistingFindsEveryEditBehindOurBack(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(t *testing.T, s *relistStack)
	}{
		{"a record set added", func(t *testing.T, s *relistStack) {
			s.change(t, r53types.ChangeActionCreate, plainA("n.one.test", 300, "198.51.100.1"))
		}},
		{"a record set deleted", func(t *testing.T, s *relistStack) {
			s.change(t, r53types.ChangeActionDelete, plainA("b.one.test", 300, "192.0.2.2"))
		}},
		{"a target changed", func(t *testing.T, s *relistStack) {
			s.change(t, r53types.ChangeActionUpsert, plainA("a.one.test", 300, "198.51.100.4"))
		}},
		{"a target added", func(t *testing.T, s *relistStack) {
			s.change(t, r53types.ChangeActionUpsert, plainA("a.one.test", 300, "192.0.2.1", "198.51.100.5"))
		}},
		{"a TTL changed", func(t *testing.T, s *relistStack) {
			s.change(t, r53types.ChangeActionUpsert, plainA("a.one.test", 60, "192.0.2.1"))
		}},
		{"a weight changed", func(t *testing.T, s *relistStack) {
			s.change(t, r53types.ChangeActionUpsert, weighted("w.one.test", "blue", 30, "192.0.2.50"))
		}},
		{"a set identifier changed", func(t *testing.T, s *relistStack) {
			s.changes(t, r53types.Change{Action: r53types.ChangeActionDelete, ResourceRecordSet: weighted("w.one.test", "blue", 10, "192.0.2.50")},
				r53types.Change{Action: r53types.ChangeActionCreate, ResourceRecordSet: weighted("w.one.test", "azure", 10, "192.0.2.50")})
		}},
		{"an alias's target health evaluation changed", func(t *testing.T, s *relistStack) {
			s.change(t, r53types.ChangeActionUpsert, aliasTo("al.one.test", "lb-1.us-east-1.elb.amazonaws.com.", true))
		}},
		{"an alias's target changed", func(t *testing.T, s *relistStack) {
			s.change(t, r53types.ChangeActionUpsert, aliasTo("al.one.test", "lb-2.us-east-1.elb.amazonaws.com.", false))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newRelistStack(t)
			v, cached, before := s.version(t), s.cachedContents(), records(t, s.p)
			tc.edit(t, s)
			if stale := s.relist(t); fmt.Sprint(stale) != "[one.test]" {
				t.Fatalf("the relisting after the edit named %v, want [one.test]", stale)
			}
			if v2 := s.version(t); v2 == v {
				t.Fatalf("the relisting after the edit kept the version %d", v)
			}
			if got := s.cachedContents(); got[0] == cached[0] || got[1] != cached[1] {
				t.Fatalf("one.test's contents replaced: %v (want true), two.test's: %v (want false)", got[0] != cached[0], got[1] != cached[1])
			}
			got := records(t, s.p)
			fresh := newProvider(t, s.p.cfg.Endpoint, Config{})
			if want := records(t, fresh); got != want || got == before {
				t.Fatalf("Records after the relisting:\n%s\nwant what a fresh provider lists:\n%s", got, want)
			}
		})
	}
}

// same tells apart two stored sets of one key that differ in any field of the SDK's record set: TTL,
// values and their order, and each other field (by reflection, so a field a new SDK adds is
// included), nested fields too; equal sets built separately (other pointers) are the same.
func TestStoredSetSameSeesEveryField(t *testing.T) {
	for i, rr := range variedRecordSets() {
		k, s := storeOf(rr)
		k2, s2 := storeOf(variedRecordSets()[i])
		if k != k2 || !s.same(s2) {
			t.Errorf("%s %s: two stores of the same set differ", *rr.Name, rr.Type)
		}
	}
	base := func() *r53types.ResourceRecordSet {
		return plainA("x.example.com.", 60, "192.0.2.1", "192.0.2.2")
	}
	// differ stores two sets made alike by prepare, the second one changed.
	differ := func(what string, prepare, change func(rr *r53types.ResourceRecordSet)) {
		t.Helper()
		a, b := base(), base()
		prepare(a)
		prepare(b)
		change(b)
		ka, sa := storeOf(a)
		kb, sb := storeOf(b)
		if ka != kb {
			t.Fatalf("%s: the key changed (%v -> %v)", what, ka, kb)
		}
		if sa.same(sb) || sb.same(sa) {
			t.Errorf("%s: the stored sets are the same", what)
		}
	}
	plain := func(*r53types.ResourceRecordSet) {}
	differ("TTL", plain, func(rr *r53types.ResourceRecordSet) { rr.TTL = ptr(int64(61)) })
	differ("no TTL", plain, func(rr *r53types.ResourceRecordSet) { rr.TTL = nil })
	differ("a value", plain, func(rr *r53types.ResourceRecordSet) { rr.ResourceRecords[1].Value = ptr("192.0.2.3") })
	differ("values' order", plain, func(rr *r53types.ResourceRecordSet) { slices.Reverse(rr.ResourceRecords) })
	differ("a value less", plain, func(rr *r53types.ResourceRecordSet) { rr.ResourceRecords = rr.ResourceRecords[:1] })
	differ("name's case", plain, func(rr *r53types.ResourceRecordSet) { rr.Name = ptr("X.example.com.") })
	typ := reflect.TypeFor[r53types.ResourceRecordSet]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		switch f.Name {
		case "Name", "Type", "SetIdentifier", "TTL", "ResourceRecords":
			continue // the key, and the fields above
		}
		if !f.IsExported() {
			continue
		}
		differ(f.Name, plain, func(rr *r53types.ResourceRecordSet) {
			v := reflect.ValueOf(rr).Elem().Field(i)
			switch v.Kind() {
			case reflect.Pointer:
				v.Set(reflect.New(f.Type.Elem()))
				if e := v.Elem(); e.Kind() == reflect.String {
					e.SetString("set")
				}
			case reflect.String:
				v.SetString("set")
			case reflect.Bool:
				v.SetBool(true)
			case reflect.Int, reflect.Int32, reflect.Int64:
				v.SetInt(1)
			default:
				t.Fatalf("field %s of kind %s: the test does not know how to set it", f.Name, v.Kind())
			}
		})
	}
	withExtras := func(rr *r53types.ResourceRecordSet) {
		rr.Weight, rr.HealthCheckId = ptr(int64(10)), ptr("hc-1")
		rr.GeoLocation = &r53types.GeoLocation{CountryCode: ptr("DE")}
		rr.AliasTarget = &r53types.AliasTarget{DNSName: ptr("lb.example.net."), HostedZoneId: ptr("Z1")}
	}
	for what, change := range map[string]func(rr *r53types.ResourceRecordSet){
		"weight":             func(rr *r53types.ResourceRecordSet) { rr.Weight = ptr(int64(11)) },
		"health check":       func(rr *r53types.ResourceRecordSet) { rr.HealthCheckId = ptr("hc-2") },
		"country":            func(rr *r53types.ResourceRecordSet) { rr.GeoLocation.CountryCode = ptr("FR") },
		"alias target":       func(rr *r53types.ResourceRecordSet) { rr.AliasTarget.DNSName = ptr("lb2.example.net.") },
		"alias's zone":       func(rr *r53types.ResourceRecordSet) { rr.AliasTarget.HostedZoneId = ptr("Z2") },
		"alias health check": func(rr *r53types.ResourceRecordSet) { rr.AliasTarget.EvaluateTargetHealth = true },
	} {
		differ("nested "+what, withExtras, change)
	}
	a, b := base(), base()
	withExtras(a)
	withExtras(b)
	_, sa := storeOf(a)
	if _, sb := storeOf(b); !sa.same(sb) {
		t.Error("equal sets with extras built separately differ")
	}
}

// sameSets compares by key, whatever the order of the entries and the holes a removal leaves.
func TestSameSetsIgnoresTheEntriesOrder(t *testing.T) {
	sets := variedRecordSets()
	forward, backward := newZoneContents(), newZoneContents()
	for i := range sets {
		forward.put(sets[i])
		backward.put(sets[len(sets)-1-i])
	}
	forward.put(plainA("gone.example.com.", 60, "192.0.2.99"))
	forward.remove(rrKey{"gone.example.com", "A", ""}) // a hole
	backward.reindex()
	if !forward.sameSets(backward) || !backward.sameSets(forward) {
		t.Fatal("the same sets in another order, with a hole, differ")
	}
	backward.put(plainA("extra.example.com.", 60, "192.0.2.98"))
	if forward.sameSets(backward) || backward.sameSets(forward) {
		t.Fatal("a set more is the same")
	}
	backward.remove(rrKey{"extra.example.com", "A", ""})
	backward.remove(rrKey{"www.example.com", "A", ""})
	backward.put(plainA("extra.example.com.", 60, "192.0.2.98"))
	if forward.sameSets(backward) || backward.sameSets(forward) {
		t.Fatal("as many sets, one of them another key, are the same")
	}
}

// Issue 15: idle resyncs whose probe finds the relisting due list every zone again but, finding what
// is cached, name no zone and keep the provider's listing version: the TXT registry keeps its cache
// without calling Records (no conversion, no hash) and its generation.
func TestIdleRelistingKeepsTheRegistryCache(t *testing.T) {
	s := newVersionStack(t, ownedRecords("one.test", "a", "b"), ownedRecords("two.test", "c"))
	_, serial, mutations, err := s.reg.RecordsWithGeneration(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	s.settle(t, "before the relistings")
	lists := s.c.count()
	s.srv.ClearCalls()
	for i := range 3 {
		if stale := s.resync(t, time.Nanosecond); len(stale) > 0 {
			t.Fatalf("relisting %d of unchanged zones named %v", i, stale)
		}
	}
	if n := s.srv.Counters().Calls["ListResourceRecordSets"]; n != 6 {
		t.Fatalf("3 relistings of 2 zones listed %d pages, want 6", n)
	}
	if got := s.c.count() - lists; got != 0 {
		t.Fatalf("3 idle relistings made the registry call Records %d times, want 0", got)
	}
	if _, serial2, mutations2, err := s.reg.RecordsWithGeneration(ctxT(t)); err != nil || serial2 != serial || mutations2 != mutations {
		t.Fatalf("after idle relistings: generation %d/%d -> %d/%d, %v", serial, mutations, serial2, mutations2, err)
	}
}
