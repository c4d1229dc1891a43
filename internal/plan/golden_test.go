package plan_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

// goldenFile holds one digest per case of TestCalculateMatchesGolden: the rendering of every plan the
// corpus makes, recorded from the implementation before the plan was tuned for speed (issue 15).
const goldenFile = "testdata/calculate.golden"

// TestCalculateMatchesGolden pins the plan's whole output, byte for byte, over a seeded corpus of
// inputs that exercise every rule (names in several spellings and in punycode, set identifiers,
// duplicate current records, foreign, unowned and migrating owners, every policy, filters, managed
// and excluded types, unreadable sources) and over the benchmark's input. Any change of order, of a
// field, of which input record an update or delete names, or of a copy that stops being fresh fails
// it. Each case is also planned in several parts at once, as Calculate does for large inputs, and must
// come out the same. ZK_PLAN_GOLDEN_UPDATE=1 rewrites the file: only for an intended change of behaviour, said so in
// the commit.
func TestCalculateMatchesGolden(t *testing.T) {
	cases := goldenCorpus()
	got := make([]string, len(cases))
	for i, in := range cases {
		got[i] = digestOf(renderPlan(t, in, plan.Calculate(in)))
		// The input read and the rows planned in parts (goroutines) make the same plan as in one.
		for _, parts := range []int{1, 2, 3, 7} {
			if d := digestOf(renderPlan(t, in, plan.CalculateInParts(in, parts))); d != got[i] {
				t.Errorf("case %d: the plan in %d parts differs from Calculate's:\n%s", i, parts, renderPlan(t, in, plan.CalculateInParts(in, parts)))
			}
		}
	}
	if os.Getenv("ZK_PLAN_GOLDEN_UPDATE") == "1" {
		if err := os.WriteFile(goldenFile, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %d digests to %s", len(got), goldenFile)
		return
	}
	want := readGolden(t)
	if len(want) != len(got) {
		t.Fatalf("%s has %d digests, the corpus %d cases", goldenFile, len(want), len(got))
	}
	failed := 0
	for i := range got {
		if got[i] == want[i] {
			continue
		}
		failed++
		if failed <= 3 {
			t.Errorf("case %d: plan differs from the recorded one; it is now:\n%s", i, renderPlan(t, cases[i], plan.Calculate(cases[i])))
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d cases differ", failed, len(got))
	}
}

func readGolden(t *testing.T) []string {
	t.Helper()
	f, err := os.Open(goldenFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func digestOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:16])
}

// goldenCorpus is deterministic: math/rand's seeded source is stable across Go releases.
func goldenCorpus() []plan.Input {
	rng := rand.New(rand.NewSource(15_2026_11_26))
	var out []plan.Input
	for range 3000 {
		out = append(out, randomGoldenInput(rng))
	}
	big := benchmarkInput(3000)
	out = append(out, big)
	shuffled := big
	shuffled.Desired, shuffled.Current = slices.Clone(big.Desired), slices.Clone(big.Current)
	rng.Shuffle(len(shuffled.Desired), func(i, j int) {
		shuffled.Desired[i], shuffled.Desired[j] = shuffled.Desired[j], shuffled.Desired[i]
	})
	rng.Shuffle(len(shuffled.Current), func(i, j int) {
		shuffled.Current[i], shuffled.Current[j] = shuffled.Current[j], shuffled.Current[i]
	})
	return append(out, shuffled)
}

func randomGoldenInput(rng *rand.Rand) plan.Input {
	in := plan.Input{OwnerID: "cluster-a"}
	in.Policy = pick(rng, []plan.Policy{plan.PolicySync, plan.PolicySync, plan.PolicyUpsertOnly, plan.PolicyCreateOnly, ""})
	if rng.Intn(3) == 0 {
		in.OldOwnerID = pick(rng, []string{"cluster-old", "cluster-a"})
	}
	if rng.Intn(4) == 0 {
		df, err := plan.NewDomainFilter([]string{pick(rng, []string{"example.com", ".example.com", "y.example.com"})},
			pick(rng, [][]string{nil, {"b.example.com"}}), "", "")
		if err != nil {
			panic(err)
		}
		in.DomainFilter = df
	}
	if rng.Intn(5) == 0 {
		in.ManagedRecordTypes = []string{"TXT", "CNAME", "MX", "A", "AAAA"}
	}
	if rng.Intn(5) == 0 {
		in.ExcludeRecordTypes = []string{pick(rng, []string{"AAAA", "CNAME", "TXT"})}
	}
	if rng.Intn(5) == 0 {
		in.Unreadable = pick(rng, [][]string{{"service"}, {"ingress/default/c"}, {"", "pod"}})
	}
	for range rng.Intn(16) {
		in.Desired = append(in.Desired, randomGoldenEndpoint(rng, false))
	}
	for range rng.Intn(14) {
		in.Current = append(in.Current, randomGoldenEndpoint(rng, true))
	}
	for _, d := range in.Desired { // records already in sync, or nearly, under some owner
		if rng.Intn(3) != 0 {
			continue
		}
		c := d.DeepCopy()
		if c.Labels == nil {
			c.Labels = endpoint.Labels{}
		}
		c.Labels[endpoint.OwnerLabelKey] = pick(rng, []string{"cluster-a", "cluster-a", "cluster-old", "cluster-b"})
		if rng.Intn(4) == 0 {
			c.RecordTTL = 60
		}
		in.Current = append(in.Current, c)
	}
	if rng.Intn(8) == 0 && len(in.Current) > 0 { // a provider listing one key twice
		dup := pick(rng, in.Current).DeepCopy()
		dup.DNSName = strings.ToUpper(dup.DNSName)
		in.Current = append(in.Current, dup)
	}
	return in
}

func randomGoldenEndpoint(rng *rand.Rand, current bool) *endpoint.Endpoint {
	names := []string{"a.example.com", "A.Example.COM.", "b.example.com", "x.y.example.com", "*.example.com",
		"münchen.example.com", "xn--mnchen-3ya.example.com", " c.example.com ", "example.org", "badexample.com"}
	var recordType string
	var pool []string
	switch rng.Intn(5) {
	case 0, 1:
		recordType, pool = endpoint.RecordTypeA, []string{"192.0.2.1", "192.0.2.2", "192.0.2.10"}
	case 2:
		recordType, pool = endpoint.RecordTypeAAAA, []string{"2001:db8::1", "2001:0db8:0:0::2", "2001:db8::3"}
	case 3:
		recordType, pool = endpoint.RecordTypeCNAME, []string{"lb1.example.net", "LB2.example.net", "lb3.example.net."}
	default:
		recordType = pick(rng, []string{"TXT", "MX"})
		pool = []string{`"v=spf1 -all"`, "10 mx.example.net"}
	}
	var targets []string
	for range 1 + rng.Intn(3) {
		if t := pick(rng, pool); !slices.Contains(targets, t) {
			targets = append(targets, t)
		}
	}
	if rng.Intn(20) == 0 {
		targets = nil
	}
	e := endpoint.NewWithTTL(pick(rng, names), recordType, endpoint.TTL(pick(rng, []int{0, 0, 300, 600})), targets...)
	e.SetIdentifier = pick(rng, []string{"", "", "", "eu", "us"})
	if rng.Intn(5) == 0 {
		e.SetProviderSpecific("aws/weight", pick(rng, []string{"10", "20"}))
	}
	if rng.Intn(10) == 0 {
		e.SetProviderSpecific("alias", "true")
	}
	if rng.Intn(3) != 0 {
		e.WithLabel(endpoint.ResourceLabelKey, pick(rng, []string{"service/default/a", "service/default/b", "ingress/default/c", "ingress/other/d"}))
	}
	if current {
		switch rng.Intn(7) {
		case 0:
			e.WithLabel(endpoint.OwnerLabelKey, "cluster-b")
		case 1:
			// unowned
		case 2:
			e.WithLabel(endpoint.OwnerLabelKey, "cluster-old")
		default:
			e.WithLabel(endpoint.OwnerLabelKey, "cluster-a")
		}
		if rng.Intn(6) == 0 {
			e.WithLabel(endpoint.TxtEncryptionNonce, "nonce-1")
		}
	} else if rng.Intn(10) == 0 {
		e.WithLabel(endpoint.OwnerLabelKey, "sneaky")
	}
	if rng.Intn(15) == 0 {
		e.Labels = nil
	}
	return e
}

// renderPlan writes out everything a plan says. Records an update or delete names are written as
// their index in Current (the plan must hand back the caller's own record, not a copy); the
// endpoints of Create and UpdateNew in full, after checking they share nothing with the input.
func renderPlan(t *testing.T, in plan.Input, res plan.Result) string {
	t.Helper()
	index := map[*endpoint.Endpoint]int{}
	for i, e := range in.Current {
		index[e] = i
	}
	shared := inputStorage(in)
	ref := func(e *endpoint.Endpoint) string {
		i, ok := index[e]
		if !ok {
			t.Errorf("the plan names a record that is not one of Current: %v", e)
			return "?" + renderEndpoint(e)
		}
		return fmt.Sprintf("current[%d]", i)
	}
	fresh := func(e *endpoint.Endpoint) string {
		if _, ok := index[e]; ok || slices.Contains(in.Desired, e) {
			t.Errorf("the plan returns an input endpoint instead of a copy: %v", e)
		}
		for _, p := range storageOf(e) {
			if shared[p] {
				t.Errorf("the plan's copy of %v shares storage with the input", e)
			}
		}
		return renderEndpoint(e)
	}
	var b strings.Builder
	c := res.Changes
	fmt.Fprintf(&b, "changes %d/%d/%d/%d nil=%t/%t/%t/%t\n", len(c.Create), len(c.UpdateOld), len(c.UpdateNew), len(c.Delete),
		c.Create == nil, c.UpdateOld == nil, c.UpdateNew == nil, c.Delete == nil)
	for _, e := range c.Create {
		fmt.Fprintf(&b, "create %s\n", fresh(e))
	}
	for i := range c.UpdateNew {
		fmt.Fprintf(&b, "update %s -> %s\n", ref(c.UpdateOld[i]), fresh(c.UpdateNew[i]))
	}
	for _, e := range c.Delete {
		fmt.Fprintf(&b, "delete %s\n", ref(e))
	}
	fmt.Fprintf(&b, "conflicts %d nil=%t\n", len(res.Conflicts), res.Conflicts == nil)
	for _, x := range res.Conflicts {
		fmt.Fprintf(&b, "conflict %q %q %q %q %q %q\n", x.Key.DNSName, x.Key.RecordType, x.Key.SetIdentifier, x.Winner, x.Loser, x.Reason)
	}
	fmt.Fprintf(&b, "mismatches %d nil=%t\n", len(res.OwnerMismatches), res.OwnerMismatches == nil)
	for _, x := range res.OwnerMismatches {
		fmt.Fprintf(&b, "mismatch %q %q %q %s %q %q %q\n", x.Key.DNSName, x.Key.RecordType, x.Key.SetIdentifier, x.Action, x.OwnerID, x.ForeignOwner, x.Resource)
	}
	fmt.Fprintf(&b, "held %d nil=%t\n", len(res.HeldByPolicy), res.HeldByPolicy == nil)
	for _, x := range res.HeldByPolicy {
		fmt.Fprintf(&b, "held %q %q %q %s %s %q %t %t\n", x.Key.DNSName, x.Key.RecordType, x.Key.SetIdentifier, x.Action, ref(x.Record), x.Resource, x.OwnerMigration, x.Unreadable)
	}
	return b.String()
}

// renderEndpoint writes every field, telling nil from empty.
func renderEndpoint(e *endpoint.Endpoint) string {
	var b strings.Builder
	fmt.Fprintf(&b, "{%q %q %q ttl=%d targets(nil=%t)%q", e.DNSName, e.RecordType, e.SetIdentifier, e.RecordTTL, e.Targets == nil, []string(e.Targets))
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range e.Labels {
			if !yield(k) {
				return
			}
		}
	})
	fmt.Fprintf(&b, " labels(nil=%t)", e.Labels == nil)
	for _, k := range keys {
		fmt.Fprintf(&b, " %q=%q", k, e.Labels[k])
	}
	fmt.Fprintf(&b, " ps(nil=%t)", e.ProviderSpecific == nil)
	for _, p := range e.ProviderSpecific {
		fmt.Fprintf(&b, " %q=%q", p.Name, p.Value)
	}
	b.WriteString("}")
	return b.String()
}

// storageOf is the addresses of an endpoint's maps and slice arrays.
func storageOf(e *endpoint.Endpoint) []uintptr {
	var out []uintptr
	if e.Labels != nil {
		out = append(out, reflect.ValueOf(e.Labels).Pointer())
	}
	if len(e.Targets) > 0 {
		out = append(out, reflect.ValueOf(e.Targets).Pointer())
	}
	if len(e.ProviderSpecific) > 0 {
		out = append(out, reflect.ValueOf(e.ProviderSpecific).Pointer())
	}
	return out
}

func inputStorage(in plan.Input) map[uintptr]bool {
	out := map[uintptr]bool{}
	for _, list := range [][]*endpoint.Endpoint{in.Desired, in.Current} {
		for _, e := range list {
			for _, p := range storageOf(e) {
				out[p] = true
			}
		}
	}
	return out
}
