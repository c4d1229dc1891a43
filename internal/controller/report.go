package controller

import (
	"fmt"
	"log/slog"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// reportedSet remembers what was already logged, so a problem that persists is logged once when it
// appears and not again on every event; it is logged again after it went away and came back.
//
// Each key has a scope token: the name (plan.NameKey) or the object (resource label) it is about. A
// run that planned some names only (an event's) knows what holds for those names and objects alone:
// it forgets only the keys whose token is in its scope, so that the findings about other names are
// not reported again, as new, by the next full run.
type reportedSet struct {
	seen map[string]string // kind NUL key → scope token
	// inScope, set during an event's run, tells whether a token is within what the run planned.
	inScope func(token string) bool
}

func newReportedSet() reportedSet { return reportedSet{seen: map[string]string{}} }

// fresh marks the keys of this run (tokens[i] is the scope token of keys[i]) and returns those not
// reported before.
func (r *reportedSet) fresh(kind string, keys, tokens []string) []bool {
	next := make(map[string]string, len(keys))
	out := make([]bool, len(keys))
	for i, k := range keys {
		k = kind + "\x00" + k
		_, seen := r.seen[k]
		out[i] = !seen
		next[k] = tokens[i]
	}
	for k, token := range r.seen {
		if len(k) > len(kind) && k[:len(kind)+1] == kind+"\x00" && (r.inScope == nil || r.inScope(token)) {
			delete(r.seen, k)
		}
	}
	for k, token := range next {
		r.seen[k] = token
	}
	return out
}

// problemToken is the scope token of a problem: its object's resource label.
func problemToken(p endpoint.Problem) string { return resourceLabel(p.Object) }

func (c *Controller) reportProblems(problems []endpoint.Problem) {
	if c.settings.QuietProblems {
		return
	}
	keys, tokens := make([]string, len(problems)), make([]string, len(problems))
	for i, p := range problems {
		keys[i], tokens[i] = p.Error(), problemToken(p)
	}
	for i, isNew := range c.reported.fresh("problem", keys, tokens) {
		if !isNew {
			continue
		}
		p := problems[i]
		c.log.Warn("Invalid input ignored", "object", p.Object.String(), "field", p.Field, "value", p.Value, "reason", p.Reason)
		c.settings.Notifier.InvalidInput(p)
	}
}

func (c *Controller) reportConflicts(conflicts []plan.Conflict) {
	keys, tokens := make([]string, len(conflicts)), make([]string, len(conflicts))
	for i, x := range conflicts {
		keys[i], tokens[i] = fmt.Sprintf("%s|%s|%s", x.Key, x.Winner, x.Loser), plan.NameKey(x.Key.DNSName)
	}
	for i, isNew := range c.reported.fresh("conflict", keys, tokens) {
		if !isNew {
			continue
		}
		x := conflicts[i]
		c.log.Warn("Conflicting claims on a name", "record", x.Key.String(), "winner", x.Winner, "loser", x.Loser, "reason", x.Reason)
		c.settings.Notifier.Conflict(x.Loser, fmt.Sprintf("%s is claimed by %s as well, which keeps it: %s", x.Key, x.Winner, x.Reason))
	}
}

func (c *Controller) reportOwnerMismatches(ms []plan.OwnerMismatch) {
	keys, tokens := make([]string, len(ms)), make([]string, len(ms))
	for i, m := range ms {
		keys[i], tokens[i] = fmt.Sprintf("%s|%s|%s", m.Key, m.Action, m.ForeignOwner), plan.NameKey(m.Key.DNSName)
	}
	for i, isNew := range c.reported.fresh("owner", keys, tokens) {
		if !isNew {
			continue
		}
		m := ms[i]
		owner := m.ForeignOwner
		if owner == "" {
			owner = "(none)"
		}
		c.log.Info("Skipping record owned by someone else", "record", m.Key.String(), "action", string(m.Action),
			"owner", owner, "ourOwner", m.OwnerID, "resource", m.Resource)
		if m.Resource != "" {
			c.settings.Notifier.Conflict(m.Resource, fmt.Sprintf("%s is owned by %s, not by this zonekeeper (owner id %q): left alone", m.Key, ownerText(m.ForeignOwner), m.OwnerID))
		}
	}
}

// reportHeld logs, once each, the changes to our records that --policy forbids: the record stays,
// and the log says why (external-dns users often wonder why a record was not deleted).
func (c *Controller) reportHeld(hs []plan.HeldChange) {
	keys, tokens := make([]string, len(hs)), make([]string, len(hs))
	for i, h := range hs {
		keys[i], tokens[i] = fmt.Sprintf("%s|%s|%s", h.Key, h.Action, h.Resource), plan.NameKey(h.Key.DNSName)
	}
	for i, isNew := range c.reported.fresh("held", keys, tokens) {
		if !isNew {
			continue
		}
		h := hs[i]
		if h.Unreadable {
			c.log.Warn(fmt.Sprintf("Kept: %s %s", h.Action, h.Key), "reason", "the source of its object cannot be read now (see the source's error); it is deleted only once the object is known to be gone", "resource", h.Resource)
			continue
		}
		why := "its object no longer asks for it"
		switch {
		case h.OwnerMigration:
			why = "its ownership record would move to this owner (--migrate-from-txt-owner)"
		case h.Action == plan.ActionUpdate:
			why = "its object asks for other targets or another TTL"
		}
		c.log.Info(fmt.Sprintf("Kept by --policy=%s: %s %s", c.settings.Policy, h.Action, h.Key), "reason", why, "resource", h.Resource)
	}
}

// reportGuard logs each zone the guard holds, once per digest: what it would do, and how to let it.
func (c *Controller) reportGuard(vs []plan.ZoneVerdict) {
	var keys, tokens []string
	var held []plan.ZoneVerdict
	for _, v := range vs {
		if v.Held {
			keys, tokens = append(keys, v.Zone+"|"+v.Digest), append(tokens, "zone:"+v.Zone)
			held = append(held, v)
		}
	}
	for i, isNew := range c.reported.fresh("guard", keys, tokens) {
		if !isNew {
			continue
		}
		v := held[i]
		zone := v.Zone
		if zone == "" {
			zone = "(names outside every zone)"
		}
		msg := fmt.Sprintf("Mass change held in zone %s: it %s; its deletes and updates wait until the plan shrinks below the threshold or an operator confirms it with --guard-confirm=%s", zone, v.Reason, v.Digest)
		c.log.Error(msg, "zone", v.Zone, "deletes", v.Deletes, "updates", v.Updates, "owned", v.Owned, "digest", v.Digest,
			"namespaces", v.Namespaces)
		if n, ok := c.settings.Notifier.(GuardNotifier); ok && len(v.Namespaces) > 0 {
			n.Held(v.Namespaces, msg)
		}
	}
}

func logChanges(log *slog.Logger, c *plan.Changes, dryRun bool) {
	suffix := ""
	if dryRun {
		suffix = " (dry run)"
	}
	one := func(action string, e *endpoint.Endpoint) {
		log.Info(fmt.Sprintf("Desired change: %s %s %s%s", action, e.DNSName, e.RecordType, suffix),
			"targets", e.Targets, "ttl", int64(e.RecordTTL), "resource", e.Resource())
	}
	for _, e := range c.Create {
		one("CREATE", e)
	}
	for _, e := range c.UpdateNew {
		one("UPDATE", e)
	}
	for _, e := range c.Delete {
		one("DELETE", e)
	}
}

func ownerText(owner string) string {
	if owner == "" {
		return "no owner (a record zonekeeper did not create)"
	}
	return fmt.Sprintf("owner %q", owner)
}

// notifyPublished tells each resource which of its records were created or updated in this run.
func (c *Controller) notifyPublished(changes *plan.Changes, rejected []provider.RejectedChange) {
	failed := make(map[endpoint.Key]bool, len(rejected))
	for _, r := range rejected {
		failed[r.Endpoint.Key()] = true
	}
	byResource := map[string][]*endpoint.Endpoint{}
	for _, list := range [][]*endpoint.Endpoint{changes.Create, changes.UpdateNew} {
		for _, e := range list {
			if r := e.Resource(); r != "" && !failed[e.Key()] {
				byResource[r] = append(byResource[r], e)
			}
		}
	}
	for r, eps := range byResource {
		c.settings.Notifier.Published(r, eps)
	}
}
