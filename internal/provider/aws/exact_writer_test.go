package aws

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/provider/providertest"
	"github.com/zonekeeper/zonekeeper/internal/registry/txt"
	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

// exactStack is the TXT registry over the Route 53 provider over the emulator, and the emulator and
// its address, so that a test can read what Route 53 holds and a fresh provider can list it.
type exactStack struct {
	srv *route53emu.Server
	url string
	p   *Provider
	rec *providertest.BatchRecorder
	c   *listCounter
	reg *txt.Registry
	cfg txt.Config
}

// exactOptions vary newExactStack; the zero value is the stack of issue 15.
type exactOptions struct {
	cacheInterval time.Duration // the registry's; 1 ns (every Refresh lists, as a resync) when zero
	notExact      bool          // the registry is not told that the provider is a provider.ExactWriter
}

// exactForwarder is the listing counter forwarding provider.ExactWriter, as the metrics wrapper does,
// so that the registry asks the provider under the counting and recording wrappers.
type exactForwarder struct {
	*listCounter
	writer provider.Provider
}

func (f exactForwarder) ListsExactlyWhatItWrote() bool {
	w, ok := f.writer.(provider.ExactWriter)
	return ok && w.ListsExactlyWhatItWrote()
}

// newExactStack makes the stack over a new emulator holding the empty zone one.test: the registry
// (owner "x") over a listing counter over a change recorder over the provider.
func newExactStack(t *testing.T, opts exactOptions) *exactStack {
	t.Helper()
	staticCredentials(t)
	srv, url := emulator(t, route53emu.Options{})
	seed(t, srv, route53emu.SeedZone{Name: "one.test"})
	s := &exactStack{srv: srv, url: url, p: newProvider(t, url, Config{}), cfg: txt.Config{OwnerID: "x", CacheInterval: time.Nanosecond}}
	if opts.cacheInterval != 0 {
		s.cfg.CacheInterval = opts.cacheInterval
	}
	s.rec = &providertest.BatchRecorder{Wrapped: provider.Wrapped{Provider: s.p}}
	s.c = &listCounter{Wrapped: provider.Wrapped{Provider: s.rec}}
	var under provider.Provider = exactForwarder{listCounter: s.c, writer: s.p}
	if opts.notExact {
		under = s.c
	}
	reg, err := txt.New(under, s.cfg)
	if err != nil {
		t.Fatal(err)
	}
	s.reg = reg
	return s
}

// tie is the start's listing through the registry, which fills the provider's cache and ties the
// registry's to the version Records reported with its records, then a resync, which keeps it.
func (s *exactStack) tie(t *testing.T) {
	t.Helper()
	for range 2 {
		if err := s.reg.Refresh(ctxT(t)); err != nil {
			t.Fatal(err)
		}
	}
}

// fresh is what a fresh registry over a fresh provider folds from Route 53 now.
func (s *exactStack) fresh(t *testing.T) []*endpoint.Endpoint {
	t.Helper()
	reg, err := txt.New(newProvider(t, s.url, Config{}), s.cfg)
	if err != nil {
		t.Fatal(err)
	}
	eps, err := reg.Records(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	return eps
}

// foldDiff names, per record set, the fields in which got differs from want: "ttl", "targets",
// "labels", "properties" (as a set), "property order", "missing", "extra".
func foldDiff(got, want []*endpoint.Endpoint) map[string][]string {
	index := func(eps []*endpoint.Endpoint) map[string]*endpoint.Endpoint {
		m := map[string]*endpoint.Endpoint{}
		for _, e := range eps {
			m[e.DNSName+" "+e.RecordType+" "+e.SetIdentifier] = e
		}
		return m
	}
	g, w := index(got), index(want)
	out := map[string][]string{}
	for k, we := range w {
		ge, ok := g[k]
		if !ok {
			out["missing"] = append(out["missing"], k)
			continue
		}
		if ge.RecordTTL != we.RecordTTL {
			out["ttl"] = append(out["ttl"], fmt.Sprintf("%s: %d, listed %d", k, ge.RecordTTL, we.RecordTTL))
		}
		if !slices.Equal(ge.Targets, we.Targets) {
			out["targets"] = append(out["targets"], fmt.Sprintf("%s: %q, listed %q", k, ge.Targets, we.Targets))
		}
		if !maps.Equal(ge.Labels, we.Labels) {
			out["labels"] = append(out["labels"], fmt.Sprintf("%s: %v, listed %v", k, ge.Labels, we.Labels))
		}
		switch {
		case !endpoint.SameProviderSpecific(ge.ProviderSpecific, we.ProviderSpecific):
			out["properties"] = append(out["properties"], fmt.Sprintf("%s: %v, listed %v", k, ge.ProviderSpecific, we.ProviderSpecific))
		case !slices.Equal(ge.ProviderSpecific, we.ProviderSpecific):
			out["property order"] = append(out["property order"], fmt.Sprintf("%s: %v, listed %v", k, ge.ProviderSpecific, we.ProviderSpecific))
		}
	}
	for k := range g {
		if _, ok := w[k]; !ok {
			out["extra"] = append(out["extra"], k)
		}
	}
	return out
}

// exactBatches makes random batches of the registry's writes, as the controller makes them (desired
// records through AdjustEndpoints) or, with raw, as any other caller might.
type exactBatches struct {
	t   *testing.T
	rng *rand.Rand
	reg *txt.Registry
	raw bool
}

func (b *exactBatches) target(rt string) []string {
	n := 1 + b.rng.IntN(2)
	var ts []string
	for range n {
		switch rt {
		case endpoint.RecordTypeA:
			ts = append(ts, fmt.Sprintf("192.0.2.%d", 1+b.rng.IntN(250)))
		case endpoint.RecordTypeAAAA:
			ts = append(ts, fmt.Sprintf("2001:db8::%x", 1+b.rng.IntN(250)))
		case endpoint.RecordTypeCNAME:
			return []string{fmt.Sprintf("svc-%d.example.net", b.rng.IntN(9))}
		default:
			switch b.rng.IntN(4) {
			case 0:
				ts = append(ts, strings.Repeat("k", 200+b.rng.IntN(200))) // split into 255-byte strings
			default:
				ts = append(ts, fmt.Sprintf("v=%d", b.rng.IntN(99)))
			}
		}
	}
	slices.Sort(ts)
	return slices.Compact(ts)
}

// desired is one new record as a source would produce it; nil when the name is taken.
func (b *exactBatches) desired(name string) *endpoint.Endpoint {
	rt := []string{endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME, endpoint.RecordTypeTXT}[b.rng.IntN(4)]
	e := endpoint.New(name, rt, b.target(rt)...).WithLabel(endpoint.ResourceLabelKey, "service/default/"+strings.Split(name, ".")[0])
	if b.rng.IntN(2) == 0 {
		e.RecordTTL = endpoint.TTL(30 + b.rng.IntN(600))
	}
	switch b.rng.IntN(8) {
	case 0: // a load balancer: an A and an AAAA alias once adjusted
		e.RecordType, e.Targets = endpoint.RecordTypeCNAME, endpoint.Targets{fmt.Sprintf("lb-%d-123.us-east-1.elb.amazonaws.com", b.rng.IntN(9))}
		if b.rng.IntN(2) == 0 {
			e.SetProviderSpecific(propEvaluateTargetHealth, "true")
		}
	case 1: // weighted, with a set identifier
		if rt != endpoint.RecordTypeCNAME {
			e.SetIdentifier = []string{"blue", "green"}[b.rng.IntN(2)]
			e.SetProviderSpecific(propWeight, fmt.Sprint(b.rng.IntN(100)))
		}
	case 2: // an alias A to a load balancer, asked for as such
		e.RecordType, e.Targets = endpoint.RecordTypeA, endpoint.Targets{fmt.Sprintf("lb-%d-456.eu-west-1.elb.amazonaws.com", b.rng.IntN(9))}
		e.SetProviderSpecific(propAlias, "true")
	}
	return e
}

// adjust puts desired records through AdjustEndpoints unless raw.
func (b *exactBatches) adjust(eps ...*endpoint.Endpoint) []*endpoint.Endpoint {
	if b.raw {
		return eps
	}
	out, err := b.reg.AdjustEndpoints(ctxT(b.t), eps)
	if err != nil {
		b.t.Fatal(err)
	}
	return out
}

// next is one batch over the registry's current records.
func (b *exactBatches) next() *plan.Changes {
	t := b.t
	current, err := b.reg.Records(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	var mine []*endpoint.Endpoint
	byName := map[string]bool{}
	for _, e := range current {
		byName[e.DNSName] = true
		if e.Labels[endpoint.OwnerLabelKey] == "x" {
			mine = append(mine, e)
		}
	}
	changes := &plan.Changes{}
	taken := map[string]bool{}
	for range 1 + b.rng.IntN(4) {
		switch op := b.rng.IntN(10); {
		case op < 5 || len(mine) == 0:
			name := fmt.Sprintf("h%d.one.test", b.rng.IntN(40))
			switch b.rng.IntN(12) {
			case 0:
				name = fmt.Sprintf("h%d.other.test", b.rng.IntN(9)) // in no zone: rejected
			case 1:
				// Taken by another type (a CNAME beside it, or anything beside a CNAME): Route 53
				// rejects it, or accepts it when the types may share a name.
			default:
				if byName[name] {
					continue
				}
			}
			if taken[name] {
				continue
			}
			taken[name] = true
			changes.Create = append(changes.Create, b.adjust(b.desired(name))...)
		case op < 8:
			old := mine[b.rng.IntN(len(mine))]
			if taken[old.DNSName] {
				continue
			}
			taken[old.DNSName] = true
			n := old.DeepCopy()
			if v, alias := n.GetProviderSpecific(propAlias); !alias || v != "true" {
				n.Targets = b.target(n.RecordType)
			}
			switch b.rng.IntN(4) {
			case 0:
				n.RecordTTL = endpoint.TTL(60 + b.rng.IntN(300))
			case 1:
				n.RecordTTL = 0
			case 2:
				if n.SetIdentifier != "" {
					n.SetProviderSpecific(propWeight, fmt.Sprint(b.rng.IntN(100)))
				}
			}
			n.Labels[endpoint.ResourceLabelKey] = fmt.Sprintf("service/default/r%d", b.rng.IntN(3))
			adjusted := b.adjust(n)
			if len(adjusted) != 1 {
				t.Fatalf("an update adjusted into %d records: %v", len(adjusted), adjusted)
			}
			changes.UpdateOld, changes.UpdateNew = append(changes.UpdateOld, old), append(changes.UpdateNew, adjusted[0])
		default:
			old := mine[b.rng.IntN(len(mine))]
			if taken[old.DNSName] {
				continue
			}
			taken[old.DNSName] = true
			changes.Delete = append(changes.Delete, old)
		}
	}
	return changes
}

// Issue 15: the Route 53 provider is a provider.ExactWriter because the TXT registry patches its
// cache with what Route 53 stores (ListedForm), not with what it sent. Over 300 random batches as the
// controller sends them (desired records through AdjustEndpoints: creates, updates and deletes of A,
// AAAA, CNAME and TXT records, load balancer aliases, weighted sets, TTLs set and unset, changes Route
// 53 or the provider rejects), the registry's patched cache equals what a fresh registry folds from a
// fresh listing of Route 53 after every write, its generation does not move but by its own writes,
// and no resync lists the provider: one listing in all. Before ListedForm, every write differed from
// the listing in its unset TTLs (written 0, listed 300), and the resync after each write listed once.
func TestRoute53ListsExactlyWhatTheRegistryWrote(t *testing.T) {
	s := newExactStack(t, exactOptions{})
	s.tie(t)
	b := &exactBatches{t: t, rng: rand.New(rand.NewPCG(15, 2)), reg: s.reg}
	unsetTTLs, writes, rejected := 0, 0, 0
	start := s.c.count()
	serialNow := func() uint64 {
		_, serial, _, err := s.reg.SharedRecordsWithGeneration(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		return serial
	}
	serial := serialNow()
	for step := range 300 {
		changes := b.next()
		for _, e := range append(changes.Create, changes.UpdateNew...) {
			if !e.RecordTTL.IsConfigured() {
				unsetTTLs++
			}
		}
		v, _ := s.p.ListingVersion()
		if err := s.reg.ApplyChanges(ctxT(t), changes); err != nil {
			if _, ok := provider.AsApplyError(err); !ok {
				t.Fatalf("step %d: %v", step, err)
			}
			rejected++
		}
		patched, ok := s.reg.CachedRecords()
		if !ok {
			t.Fatalf("step %d: the write dropped the cache", step)
		}
		if d := foldDiff(patched, s.fresh(t)); len(d) > 0 {
			t.Fatalf("step %d: the patched cache differs from the listing: %v", step, d)
		}
		if v2, _ := s.p.ListingVersion(); v2 != v {
			writes++
		}
		if _, err := s.reg.CheckZones(ctxT(t), 24*time.Hour); err != nil {
			t.Fatal(err)
		}
		if err := s.reg.Refresh(ctxT(t)); err != nil {
			t.Fatal(err)
		}
		if n := s.c.count() - start; n != 0 {
			t.Fatalf("step %d: %d listings of the provider since the first, want none", step, n)
		}
		if got := serialNow(); got != serial {
			t.Fatalf("step %d: the registry's cache was built anew (serial %d, was %d)", step, got, serial)
		}
	}
	t.Logf("300 batches, %d of them changed Route 53, %d had changes rejected, %d records written without a TTL; no listing after the first",
		writes, rejected, unsetTTLs)
	if unsetTTLs == 0 || rejected == 0 || writes < 200 {
		t.Fatalf("%d records without a TTL, %d batches with rejections, %d writes: the batches do not exercise every kind", unsetTTLs, rejected, writes)
	}
}

// What Route 53 stores otherwise than a caller wrote it, through the registry, without AdjustEndpoints
// (which puts desired records into the listed form): an unset TTL, a quoted TXT, a target's dot or an
// alias target's case, an alias's missing properties, a weight's leading zero, a failover's case, a
// multi-value flag, another provider's property. The registry patches its cache with the stored form
// (ListedForm), so it equals a fresh listing in each case and no listing follows. A set Route 53
// stores under another key (a CNAME alias is an A) is not found there: the registry keeps what it
// sent, drops its tie to the listing version, and the next refresh lists once and agrees.
func TestRoute53NormalisesWhatACallerWrote(t *testing.T) {
	const lb = "lb-1-123.us-east-1.elb.amazonaws.com"
	withTTL := func(e *endpoint.Endpoint) *endpoint.Endpoint { e.RecordTTL = 120; return e }
	prop := func(e *endpoint.Endpoint, setID string, kv ...string) *endpoint.Endpoint {
		e.SetIdentifier = setID
		for i := 0; i < len(kv); i += 2 {
			e.SetProviderSpecific(kv[i], kv[i+1])
		}
		return e
	}
	for _, tc := range []struct {
		name string
		ep   *endpoint.Endpoint
		want string // the fields that differ, sorted, comma-separated
	}{
		{"a TTL set", withTTL(endpoint.New("a.one.test", "A", "192.0.2.1")), ""},
		{"no TTL", endpoint.New("a.one.test", "A", "192.0.2.1"), ""},
		{"targets out of order", withTTL(endpoint.New("a.one.test", "A", "192.0.2.9", "192.0.2.1")), ""},
		{"a long TXT, split into strings", withTTL(endpoint.New("a.one.test", "TXT", strings.Repeat("k", 400))), ""},
		{"a quoted TXT", withTTL(endpoint.New("a.one.test", "TXT", `"v=1"`)), ""},
		// endpoint.New trims a target's dot, the listing too; a caller may not have. Case is kept.
		{"a CNAME target in upper case with a dot", withTTL(&endpoint.Endpoint{DNSName: "a.one.test", RecordType: "CNAME", Targets: endpoint.Targets{"Svc.Example.NET."}}), ""},
		{"a CNAME target in upper case", withTTL(endpoint.New("a.one.test", "CNAME", "Svc.Example.NET")), ""},
		{"a CNAME to a load balancer, not adjusted", withTTL(endpoint.New("a.one.test", "CNAME", lb)), ""},
		{"an alias with no TTL nor evaluate-target-health", prop(endpoint.New("a.one.test", "A", lb), "", propAlias, "true"), ""},
		{"an alias with both", prop(endpoint.NewWithTTL("a.one.test", "A", DefaultTTL, lb), "", propAlias, "true", propEvaluateTargetHealth, "false"), ""},
		{"an alias target in upper case", prop(endpoint.NewWithTTL("a.one.test", "A", DefaultTTL, "LB-1-123.us-east-1.elb.amazonaws.com"), "", propAlias, "true", propEvaluateTargetHealth, "false"), ""},
		{"a CNAME alias, stored as an A", prop(endpoint.NewWithTTL("a.one.test", "CNAME", DefaultTTL, lb), "", propAlias, "true", propEvaluateTargetHealth, "false"), "extra,missing"},
		{"a weight", prop(withTTL(endpoint.New("a.one.test", "A", "192.0.2.1")), "blue", propWeight, "10"), ""},
		{"a weight with a leading zero", prop(withTTL(endpoint.New("a.one.test", "A", "192.0.2.1")), "blue", propWeight, "010"), ""},
		{"a failover in lower case", prop(withTTL(endpoint.New("a.one.test", "A", "192.0.2.1")), "blue", propFailover, "primary"), ""},
		{"multi-value answer true", prop(withTTL(endpoint.New("a.one.test", "A", "192.0.2.1")), "blue", propMultiValueAnswer, "true"), ""},
		{"another provider's property", prop(withTTL(endpoint.New("a.one.test", "A", "192.0.2.1")), "", "cloudflare/proxied", "true"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newExactStack(t, exactOptions{})
			s.tie(t)
			start := s.c.count()
			if err := s.reg.ApplyChanges(ctxT(t), &plan.Changes{Create: []*endpoint.Endpoint{tc.ep}}); err != nil {
				t.Fatal(err)
			}
			patched, _ := s.reg.CachedRecords()
			d := foldDiff(patched, s.fresh(t))
			got := slices.Sorted(maps.Keys(d))
			if strings.Join(got, ",") != tc.want {
				t.Fatalf("differs in %v, want %q: %v", got, tc.want, d)
			}
			if err := s.reg.Refresh(ctxT(t)); err != nil {
				t.Fatal(err)
			}
			listings := s.c.count() - start
			if want := min(len(tc.want), 1); listings != want {
				t.Fatalf("%d listings after the write, want %d", listings, want)
			}
			cached, _ := s.reg.CachedRecords()
			if d := foldDiff(cached, s.fresh(t)); len(d) > 0 {
				t.Fatalf("after the refresh the registry differs from a fresh listing: %v", d)
			}
		})
	}
}
