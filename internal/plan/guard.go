package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// Guard holds back plans that would delete or rewrite a large part of the records we own in a zone:
// the signature of a mistake (a --domain-filter typo, a source that listed nothing, a namespace
// deleted by accident) rather than of a deploy. octoDNS has such a threshold; external-dns has none.
//
// Two things keep a mass change from slipping through in slices, as it would when an informer sees a
// namespace's objects go one by one and every reconcile plans only the latest few: deletes wait Settle
// after they are first planned (so a burst is judged whole), and the threshold counts what was
// already deleted or updated in the zone within Window, against the largest count owned in it.
type Guard struct {
	// MaxDeleteFraction and MaxUpdateFraction are the largest share of a zone's owned record sets that
	// may be deleted, or updated, within Window; 0 turns that check off.
	MaxDeleteFraction, MaxUpdateFraction float64
	// MinChanges: up to this many deletes (or updates) in a zone always pass, so that small zones are
	// never blocked.
	MinChanges int
	// Window is how long applied changes count against the threshold; Settle is how long a delete
	// waits after it is first planned.
	Window, Settle time.Duration
	// Zones are the zone names records are grouped by (the longest suffix wins); a record under none
	// counts in the zone "" (everything else).
	Zones []string
	// Confirmed are digests of verdicts an operator approved (--guard-confirm): a held zone whose
	// digest is listed passes.
	Confirmed []string
}

// Enabled reports whether any check is on.
func (g Guard) Enabled() bool { return g.MaxDeleteFraction > 0 || g.MaxUpdateFraction > 0 }

// GuardState is what the guard remembers between plans of one view; the zero value is empty. It is
// the caller's (one controller's), not shared.
type GuardState struct {
	zones map[string]*zoneHistory
	// firstPlanned is when each planned delete (by key) was first seen.
	firstPlanned map[endpoint.Key]time.Time
}

type zoneHistory struct {
	since            time.Time
	baseline         int // the most record sets owned in the zone since `since`
	deleted, updated int // applied since `since`
}

// ZoneVerdict is the guard's reading of one zone in one plan.
type ZoneVerdict struct {
	Zone  string
	Owned int // record sets we own there now
	// Deletes and Updates are planned now; Baseline, Deleted and Updated are the window's.
	Deletes, Updates           int
	Baseline, Deleted, Updated int
	// Held: the zone's deletes and updates are not applied (its creates are). Reason says which
	// threshold was passed.
	Held   bool
	Reason string
	// Digest names exactly this set of held changes; confirming it lets them through, and any other
	// plan gets a new digest.
	Digest string
	// Namespaces are those of the objects whose records the zone's deletes and updates are (sorted;
	// cluster-scoped objects have none), so that their owners can be told.
	Namespaces []string
}

// Check reads a plan at time now. It returns the changes to apply now (without the held zones'
// deletes and updates, and without deletes still settling), a verdict per zone with changes (sorted
// by zone), and when to plan again for settling deletes (zero: no need). It records in state what it
// lets through, as applied.
func (g Guard) Check(changes *Changes, current []*endpoint.Endpoint, ownerID string, state *GuardState, now time.Time) (*Changes, []ZoneVerdict, time.Time) {
	if !g.Enabled() || changes == nil {
		return changes, nil, time.Time{}
	}
	return g.CheckScoped(changes, g.Owned(current, ownerID), nil, state, now)
}

// Owned counts the record sets of current that ownerID owns, by zone.
func (g Guard) Owned(current []*endpoint.Endpoint, ownerID string) map[string]int {
	owned := map[string]int{}
	if !g.Enabled() {
		return owned
	}
	for _, e := range current {
		if e.Owner() == ownerID {
			owned[g.zoneOf(e.DNSName)]++
		}
	}
	return owned
}

// ZoneOf is the zone a name counts in ("" when it falls under none of Zones).
func (g Guard) ZoneOf(name string) string { return g.zoneOf(name) }

// CheckScoped is Check for a plan of some names only (an event's): owned are the record sets owned
// in each zone as a whole (Owned of all current records, kept up to date by the caller), and inScope
// says which names (as NameKey puts them) the plan covered; nil means all. Deletes of names outside
// it keep settling as they were. The caller must put into every scoped plan the names of the
// changes it held before, so that a zone is judged on all its planned changes.
func (g Guard) CheckScoped(changes *Changes, owned map[string]int, inScope func(name string) bool, state *GuardState, now time.Time) (*Changes, []ZoneVerdict, time.Time) {
	if !g.Enabled() || changes == nil {
		return changes, nil, time.Time{}
	}
	if state.zones == nil {
		state.zones = map[string]*zoneHistory{}
	}
	byZone := map[string]*ZoneVerdict{}
	keys := map[string][]string{}
	namespaces := map[string]map[string]bool{}
	noteNamespace := func(zone string, e *endpoint.Endpoint) {
		parts := strings.Split(e.Resource(), "/") // kind/namespace/name, or kind/name
		if len(parts) != 3 || parts[1] == "" {
			return
		}
		if namespaces[zone] == nil {
			namespaces[zone] = map[string]bool{}
		}
		namespaces[zone][parts[1]] = true
	}
	verdict := func(zone string) *ZoneVerdict {
		v := byZone[zone]
		if v == nil {
			h := state.zones[zone]
			if h == nil || now.Sub(h.since) > g.Window {
				h = &zoneHistory{since: now}
				state.zones[zone] = h
			}
			h.baseline = max(h.baseline, owned[zone])
			v = &ZoneVerdict{Zone: zone, Owned: owned[zone], Baseline: h.baseline, Deleted: h.deleted, Updated: h.updated}
			byZone[zone] = v
		}
		return v
	}
	for _, e := range changes.Delete {
		v := verdict(g.zoneOf(e.DNSName))
		v.Deletes++
		keys[v.Zone] = append(keys[v.Zone], "delete "+e.Key().String())
		noteNamespace(v.Zone, e)
	}
	for _, e := range changes.UpdateNew {
		v := verdict(g.zoneOf(e.DNSName))
		v.Updates++
		keys[v.Zone] = append(keys[v.Zone], "update "+e.Key().String())
		noteNamespace(v.Zone, e)
	}
	// Deletes settle: while a zone has a delete planned less than Settle ago, none of its deletes is
	// judged or applied, so that the whole burst is judged at once (a zone that never stops is judged
	// after 4 Settle all the same).
	planned := make(map[endpoint.Key]time.Time, len(changes.Delete))
	oldest := map[string]time.Time{}
	settling := map[string]bool{}
	var recheck time.Time
	for _, e := range changes.Delete {
		k := e.Key()
		first, ok := state.firstPlanned[k]
		if !ok {
			first = now
		}
		planned[k] = first
		z := g.zoneOf(e.DNSName)
		if o, ok := oldest[z]; !ok || first.Before(o) {
			oldest[z] = first
		}
		if due := first.Add(g.Settle); due.After(now) {
			settling[z] = true
			if recheck.IsZero() || due.Before(recheck) {
				recheck = due
			}
		}
	}
	if inScope != nil {
		for k, first := range state.firstPlanned {
			if _, again := planned[k]; !again && !inScope(nameKey(k.DNSName)) {
				planned[k] = first
			}
		}
	}
	state.firstPlanned = planned
	for z := range settling {
		if !oldest[z].Add(4 * g.Settle).After(now) {
			delete(settling, z)
		}
	}

	held := map[string]bool{}
	out := make([]ZoneVerdict, 0, len(byZone))
	for z, v := range byZone {
		deletes, updates := v.Deleted+v.Deletes, v.Updated+v.Updates
		switch {
		case settling[z]:
			v.Reason = "" // judged once its deletes have settled
		case g.MaxDeleteFraction > 0 && v.Deletes > 0 && deletes > g.MinChanges && float64(deletes) > g.MaxDeleteFraction*float64(v.Baseline):
			v.Reason = fmt.Sprintf("would delete %d of the %d record sets we own (%d of them now; more than %g)", deletes, v.Baseline, v.Deletes, g.MaxDeleteFraction)
		case g.MaxUpdateFraction > 0 && v.Updates > 0 && updates > g.MinChanges && float64(updates) > g.MaxUpdateFraction*float64(v.Baseline):
			v.Reason = fmt.Sprintf("would update %d of the %d record sets we own (%d of them now; more than %g)", updates, v.Baseline, v.Updates, g.MaxUpdateFraction)
		}
		if v.Reason != "" {
			v.Digest = digest(z, keys[z])
			v.Held = !slices.Contains(g.Confirmed, v.Digest)
			for ns := range namespaces[z] {
				v.Namespaces = append(v.Namespaces, ns)
			}
			slices.Sort(v.Namespaces)
			held[z] = v.Held
		}
		out = append(out, *v)
	}
	slices.SortFunc(out, func(a, b ZoneVerdict) int { return strings.Compare(a.Zone, b.Zone) })

	allowed := &Changes{Create: changes.Create}
	for i, e := range changes.UpdateNew {
		if z := g.zoneOf(e.DNSName); !held[z] && !settling[z] {
			allowed.UpdateOld = append(allowed.UpdateOld, changes.UpdateOld[i])
			allowed.UpdateNew = append(allowed.UpdateNew, e)
			state.zones[z].updated++
		}
	}
	for _, e := range changes.Delete {
		if z := g.zoneOf(e.DNSName); !held[z] && !settling[z] {
			allowed.Delete = append(allowed.Delete, e)
			state.zones[z].deleted++
		}
	}
	return allowed, out, recheck
}

// zoneOf is the longest zone name name falls under, "" when none.
func (g Guard) zoneOf(name string) string {
	n := strings.TrimSuffix(strings.ToLower(name), ".")
	best := ""
	for _, z := range g.Zones {
		z = strings.TrimSuffix(strings.ToLower(z), ".")
		if (n == z || strings.HasSuffix(n, "."+z)) && len(z) > len(best) {
			best = z
		}
	}
	return best
}

func digest(zone string, keys []string) string {
	slices.Sort(keys)
	h := sha256.New()
	h.Write([]byte(zone))
	for _, k := range keys {
		h.Write([]byte{0})
		h.Write([]byte(k))
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}
