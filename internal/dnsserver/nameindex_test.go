package dnsserver

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/miekg/dns"
)

// indexState is what an index must hold: name → node.
type indexState map[string]*node

// checkIndex compares an index with the state it must hold: every name found with its node, every
// other name of universe absent, the walk yielding each name once, and the size.
func checkIndex(t *testing.T, what string, ix nameIndex, want indexState, universe []string) {
	t.Helper()
	for _, name := range universe {
		if got := ix.get(name); got != want[name] {
			t.Fatalf("%s: get(%s) = %p, want %p", what, name, got, want[name])
		}
	}
	seen := map[string]bool{}
	for name, n := range ix.all() {
		if seen[name] || want[name] != n {
			t.Fatalf("%s: the walk yields %s (twice: %v) with %p, want %p", what, name, seen[name], n, want[name])
		}
		seen[name] = true
	}
	if len(seen) != len(want) || ix.len() != len(want) {
		t.Fatalf("%s: the walk yields %d names, len says %d, want %d", what, len(seen), ix.len(), len(want))
	}
	// Deletes fold what they empty: the trie has the shape of one built from its names alone.
	fresh := nameIndex{seed: ix.seed, mask: ix.mask}.edit()
	for _, n := range want {
		fresh.set(n)
	}
	if got, built := trieNodes(ix.root), trieNodes(fresh.done().root); got != built {
		t.Fatalf("%s: %d trie nodes, but %d when built from its names", what, got, built)
	}
}

func trieNodes(t *trieNode) int {
	if t == nil {
		return 0
	}
	count := 1
	for _, s := range t.slots {
		count += trieNodes(s.child)
	}
	return count
}

// TestNameIndexKeepsEveryVersion applies random batches of sets and deletes and checks, after each,
// the new index and every earlier one against the state each was made from: a batch changes only its
// own copy, whatever it shares with the index it started from. The hashes are the real ones, ones
// with only 2 bits at the first level and the rest 30 levels down (deep paths that split and fold),
// and a constant one (every name in one bucket at the bottom of the trie).
func TestNameIndexKeepsEveryVersion(t *testing.T) {
	masks := map[string]uint64{
		"maphash":  ^uint64(0),
		"low bits": 0b11 | 0xff<<30,
		"constant": 0,
	}
	for hname, mask := range masks {
		t.Run(hname, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			var universe []string
			for i := range 600 {
				universe = append(universe, fmt.Sprintf("n%d.example.test.", i))
			}
			if hname == "constant" {
				universe = universe[:60]
			}
			ix := newNameIndex()
			ix.mask = mask
			state := indexState{}
			var versions []nameIndex
			var states []indexState
			for batch := range 120 {
				e := ix.edit()
				next := maps.Clone(state)
				// Early batches grow the index, later ones shrink it, so paths both split and fold.
				setShare := 0.8
				if batch > 60 {
					setShare = 0.3
				}
				for range rng.IntN(40) + 1 {
					name := universe[rng.IntN(len(universe))]
					if rng.Float64() < setShare {
						n := &node{name: name}
						e.set(n)
						next[name] = n
					} else {
						e.delete(name)
						delete(next, name)
					}
				}
				ix, state = e.done(), next
				versions, states = append(versions, ix), append(states, state)
				// The new version and the one it started from after every batch, all of them now and then.
				for v := range versions {
					if v >= len(versions)-2 || batch%15 == 0 {
						checkIndex(t, fmt.Sprintf("batch %d, version %d", batch, v), versions[v], states[v], universe)
					}
				}
			}
			// Deleting everything leaves an empty trie, not a chain of empty nodes.
			e := ix.edit()
			for name := range state {
				e.delete(name)
			}
			if empty := e.done(); empty.root != nil || empty.len() != 0 {
				t.Fatalf("after deleting every name: root %v, len %d", empty.root, empty.len())
			}
		})
	}
}

// snapshotOf returns the current snapshot of a view.
func snapshotOf(s *Server, view string) *snapshot { return s.views.byName[view].snap.Load() }

// answerFrom answers a question from one snapshot, as a query that loaded it would.
func answerFrom(snap *snapshot, name string, qtype uint16) *dns.Msg {
	q := question(name, qtype)
	m := new(dns.Msg)
	m.SetReply(q)
	answer(m, snap, q.Question[0], false)
	return m
}

// TestOldSnapshotUnchangedByLaterBatches: a reader that loaded a snapshot keeps seeing exactly it
// while later batches change, delete and re-add names of the same trie paths, and the later snapshots
// see each batch whole.
func TestOldSnapshotUnchangedByLaterBatches(t *testing.T) {
	s, err := New(Config{Listen: []string{"127.0.0.1:0"}, Zones: []string{testZone}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var rrs []string
	for i := range 2000 {
		rrs = append(rrs, fmt.Sprintf("h%d.example.test. 60 IN A 10.0.%d.%d", i, i/250, i%250))
	}
	set(t, s, "default", rrs...)
	old := snapshotOf(s, "default")

	// Change 500 names, delete 500, add 500 new ones.
	err = s.Update("default", func(tx *Txn) {
		for i := range 500 {
			a, _ := dns.NewRR(fmt.Sprintf("h%d.example.test. 60 IN A 10.1.%d.%d", i, i/250, i%250))
			mustReplace(t, tx, a)
			mustDelete(t, tx, fmt.Sprintf("h%d.example.test.", 1000+i), dns.TypeA)
			b, _ := dns.NewRR(fmt.Sprintf("new%d.example.test. 60 IN A 10.2.%d.%d", i, i/250, i%250))
			mustReplace(t, tx, b)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	mid := snapshotOf(s, "default")
	// Re-add the deleted names and delete the new ones.
	err = s.Update("default", func(tx *Txn) {
		for i := range 500 {
			a, _ := dns.NewRR(fmt.Sprintf("h%d.example.test. 60 IN A 10.3.%d.%d", 1000+i, i/250, i%250))
			mustReplace(t, tx, a)
			mustDelete(t, tx, fmt.Sprintf("new%d.example.test.", i), dns.TypeA)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	last := snapshotOf(s, "default")

	want := func(snap *snapshot, what, name, addr string) {
		t.Helper()
		r := answerFrom(snap, name, dns.TypeA)
		got := "NXDOMAIN"
		if r.Rcode == dns.RcodeSuccess && len(r.Answer) == 1 {
			got = r.Answer[0].(*dns.A).A.String()
		}
		if got != addr {
			t.Fatalf("%s: %s A = %s, want %s", what, name, got, addr)
		}
	}
	for i := range 500 {
		h, gone, added := fmt.Sprintf("h%d.example.test.", i), fmt.Sprintf("h%d.example.test.", 1000+i), fmt.Sprintf("new%d.example.test.", i)
		want(old, "old", h, fmt.Sprintf("10.0.%d.%d", i/250, i%250))
		want(old, "old", gone, fmt.Sprintf("10.0.%d.%d", (1000+i)/250, (1000+i)%250))
		want(old, "old", added, "NXDOMAIN")
		want(mid, "mid", h, fmt.Sprintf("10.1.%d.%d", i/250, i%250))
		want(mid, "mid", gone, "NXDOMAIN")
		want(mid, "mid", added, fmt.Sprintf("10.2.%d.%d", i/250, i%250))
		want(last, "last", h, fmt.Sprintf("10.1.%d.%d", i/250, i%250))
		want(last, "last", gone, fmt.Sprintf("10.3.%d.%d", i/250, i%250))
		want(last, "last", added, "NXDOMAIN")
	}
	// Every snapshot has the apex and its own count of names.
	for what, c := range map[string]struct {
		snap  *snapshot
		names int
	}{"old": {old, 2001}, "mid": {mid, 2001}, "last": {last, 2001}} {
		if c.snap.names.len() != c.names || c.snap.names.get(testZone) == nil {
			t.Errorf("%s: %d names (apex present: %v), want %d", what, c.snap.names.len(), c.snap.names.get(testZone) != nil, c.names)
		}
	}
}

func mustReplace(t *testing.T, tx *Txn, rr dns.RR) {
	t.Helper()
	if err := tx.Replace(rr.Header().Name, rr.Header().Rrtype, []dns.RR{rr}); err != nil {
		t.Fatal(err)
	}
}

func mustDelete(t *testing.T, tx *Txn, name string, rrtype uint16) {
	t.Helper()
	if err := tx.Replace(name, rrtype, nil); err != nil {
		t.Fatal(err)
	}
}

// TestEmptyNonTerminalsOfManyNames: empty non-terminals exist exactly while names with data are
// below them, counted over many names in many batches (they land all over the trie), and go when the
// last one goes; the index then holds the apex alone.
func TestEmptyNonTerminalsOfManyNames(t *testing.T) {
	s, err := New(Config{Listen: []string{"127.0.0.1:0"}, Zones: []string{testZone}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// 40 parents p<j>.zone.example.test, each with 25 children c<i>.p<j>...: the parents and
	// zone.example.test are empty non-terminals.
	child := func(i, j int) string { return fmt.Sprintf("c%d.p%d.zone.example.test.", i, j) }
	for i := range 25 {
		var rrs []string
		for j := range 40 {
			rrs = append(rrs, child(i, j)+" 60 IN TXT \"x\"")
		}
		set(t, s, "default", rrs...)
	}
	rcode := func(name string) string {
		r := answerFrom(snapshotOf(s, "default"), name, dns.TypeA)
		if r.Rcode == dns.RcodeSuccess && len(r.Answer) == 0 {
			return "NODATA"
		}
		return dns.RcodeToString[r.Rcode]
	}
	if got := rcode("zone.example.test."); got != "NODATA" {
		t.Fatalf("zone.example.test with 1000 names below: %s, want NODATA", got)
	}
	if n := snapshotOf(s, "default").names.get("zone.example.test."); n == nil || n.below != 1000 {
		t.Fatalf("zone.example.test counts %v names below, want 1000", n)
	}
	// Delete the children of the even parents one batch per child index; the odd parents keep theirs.
	for i := range 25 {
		err := s.Update("default", func(tx *Txn) {
			for j := 0; j < 40; j += 2 {
				mustDelete(t, tx, child(i, j), dns.TypeTXT)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for j := range 40 {
		want := "NODATA"
		if j%2 == 0 {
			want = "NXDOMAIN"
		}
		if got := rcode(fmt.Sprintf("p%d.zone.example.test.", j)); got != want {
			t.Fatalf("p%d after deleting the even parents' children: %s, want %s", j, got, want)
		}
	}
	if n := snapshotOf(s, "default").names.get("zone.example.test."); n == nil || n.below != 500 {
		t.Fatalf("zone.example.test counts %v names below, want 500", n)
	}
	// Re-add one child of an even parent, then delete everything in one batch.
	set(t, s, "default", child(3, 4)+" 60 IN TXT \"again\"")
	if got := rcode("p4.zone.example.test."); got != "NODATA" {
		t.Fatalf("p4 after re-adding a child: %s, want NODATA", got)
	}
	err = s.Update("default", func(tx *Txn) {
		mustDelete(t, tx, child(3, 4), dns.TypeTXT)
		for i := range 25 {
			for j := 1; j < 40; j += 2 {
				mustDelete(t, tx, child(i, j), dns.TypeTXT)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := rcode("zone.example.test."); got != "NXDOMAIN" {
		t.Fatalf("zone.example.test with nothing below: %s, want NXDOMAIN", got)
	}
	if ix := snapshotOf(s, "default").names; ix.len() != 1 || ix.get(testZone) == nil {
		t.Fatalf("after deleting every name the index holds %d names, want the apex alone", ix.len())
	}
}

// TestZoneRecordsInNameOrder: a transfer lists SOA, NS, then every record of the zone exactly once in
// canonical name order (not the index's hash order), without the names of a more specific zone of the
// server, then SOA.
func TestZoneRecordsInNameOrder(t *testing.T) {
	s, err := New(Config{Listen: []string{"127.0.0.1:0"}, Zones: []string{testZone, "sub.example.test"},
		Views: []ViewConfig{{Name: "internal", Subnets: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var rrs, want []string
	for i := range 1500 {
		name := fmt.Sprintf("h%d.l%d.example.test.", i, i%7)
		rrs = append(rrs, name+" 60 IN A 10.0.0.1")
		want = append(want, name)
	}
	rrs = append(rrs, "x.sub.example.test. 60 IN A 10.0.0.2", "*.example.test. 60 IN TXT \"w\"")
	want = append(want, "*.example.test.")
	set(t, s, "default", rrs...)
	set(t, s, "internal", "only.example.test. 60 IN A 10.9.9.9")

	snap := snapshotOf(s, "default")
	var z *zone
	for _, zz := range snap.zones {
		if zz.name == testZone {
			z = zz
		}
	}
	got := zoneRecords(snap, z)
	if got[0] != z.soa || got[len(got)-1] != z.soa || len(got) != 2+len(z.ns)+len(want) {
		t.Fatalf("transfer of %d records (first %v, last %v), want SOA, %d NS, %d records, SOA", len(got), got[0], got[len(got)-1], len(z.ns), len(want))
	}
	var names []string
	for _, rr := range got[1+len(z.ns) : len(got)-1] {
		names = append(names, rr.Header().Name)
	}
	slices.SortFunc(want, func(a, b string) int {
		// Canonical order (RFC 4034 §6.1) for these names: compare the labels from the right.
		la, lb := strings.Split(strings.TrimSuffix(a, "."), "."), strings.Split(strings.TrimSuffix(b, "."), ".")
		slices.Reverse(la)
		slices.Reverse(lb)
		return slices.Compare(la, lb)
	})
	if !slices.Equal(names, want) {
		for i := range min(len(names), len(want)) {
			if names[i] != want[i] {
				t.Fatalf("transfer order differs at %d: %s, want %s", i, names[i], want[i])
			}
		}
		t.Fatalf("transfer lists %d names, want %d", len(names), len(want))
	}
}
