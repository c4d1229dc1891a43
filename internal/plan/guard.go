package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// Guard holds back plans that would delete or rewrite a large part of the records we own in a zone:
// the signature of a mistake (a --domain-filter typo, a source that listed nothing, a namespace
// deleted by accident) rather than of a deploy. octoDNS has such a threshold; external-dns has none.
type Guard struct {
	// MaxDeleteFraction and MaxUpdateFraction are the largest share of a zone's owned record sets one
	// plan may delete, or update; 0 turns that check off.
	MaxDeleteFraction, MaxUpdateFraction float64
	// MinChanges: a zone's deletes (or updates) at or below this count always pass, so that small
	// zones are never blocked.
	MinChanges int
	// Zones are the zone names records are grouped by (the longest suffix wins); a record under none
	// counts in the zone "" (everything else).
	Zones []string
	// Confirmed are digests of verdicts an operator approved (--guard-confirm): a held zone whose
	// digest is listed passes.
	Confirmed []string
}

// Enabled reports whether any check is on.
func (g Guard) Enabled() bool { return g.MaxDeleteFraction > 0 || g.MaxUpdateFraction > 0 }

// ZoneVerdict is the guard's reading of one zone in one plan.
type ZoneVerdict struct {
	Zone             string
	Owned            int // record sets we own there now
	Deletes, Updates int
	// Held: the zone's deletes and updates are not applied (its creates are). Reason says which
	// threshold was passed.
	Held   bool
	Reason string
	// Digest names exactly this set of held changes; confirming it lets them through, and any other
	// plan gets a new digest.
	Digest string
}

// Check reads a plan. It returns the changes that may be applied now (the plan without the held
// zones' deletes and updates) and a verdict per zone with changes, sorted by zone.
func (g Guard) Check(changes *Changes, current []*endpoint.Endpoint, ownerID string) (*Changes, []ZoneVerdict) {
	if !g.Enabled() || changes == nil {
		return changes, nil
	}
	byZone := map[string]*ZoneVerdict{}
	verdict := func(name string) *ZoneVerdict {
		z := g.zoneOf(name)
		v := byZone[z]
		if v == nil {
			v = &ZoneVerdict{Zone: z}
			byZone[z] = v
		}
		return v
	}
	for _, e := range current {
		if e.Owner() == ownerID {
			verdict(e.DNSName).Owned++
		}
	}
	keys := map[string][]string{}
	for _, e := range changes.Delete {
		v := verdict(e.DNSName)
		v.Deletes++
		keys[v.Zone] = append(keys[v.Zone], "delete "+e.Key().String())
	}
	for _, e := range changes.UpdateNew {
		v := verdict(e.DNSName)
		v.Updates++
		keys[v.Zone] = append(keys[v.Zone], "update "+e.Key().String())
	}
	held := map[string]bool{}
	var out []ZoneVerdict
	for z, v := range byZone {
		if v.Deletes == 0 && v.Updates == 0 {
			continue
		}
		switch {
		case g.MaxDeleteFraction > 0 && v.Deletes > g.MinChanges && float64(v.Deletes) > g.MaxDeleteFraction*float64(v.Owned):
			v.Reason = fmt.Sprintf("would delete %d of the %d record sets we own (more than %g)", v.Deletes, v.Owned, g.MaxDeleteFraction)
		case g.MaxUpdateFraction > 0 && v.Updates > g.MinChanges && float64(v.Updates) > g.MaxUpdateFraction*float64(v.Owned):
			v.Reason = fmt.Sprintf("would update %d of the %d record sets we own (more than %g)", v.Updates, v.Owned, g.MaxUpdateFraction)
		}
		if v.Reason != "" {
			v.Digest = digest(z, keys[z])
			v.Held = !slices.Contains(g.Confirmed, v.Digest)
			held[z] = v.Held
		}
		out = append(out, *v)
	}
	slices.SortFunc(out, func(a, b ZoneVerdict) int { return strings.Compare(a.Zone, b.Zone) })
	if len(held) == 0 {
		return changes, out
	}
	allowed := &Changes{Create: changes.Create}
	for i, e := range changes.UpdateNew {
		if !held[g.zoneOf(e.DNSName)] {
			allowed.UpdateOld = append(allowed.UpdateOld, changes.UpdateOld[i])
			allowed.UpdateNew = append(allowed.UpdateNew, e)
		}
	}
	for _, e := range changes.Delete {
		if !held[g.zoneOf(e.DNSName)] {
			allowed.Delete = append(allowed.Delete, e)
		}
	}
	return allowed, out
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
