package googlednsemu

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// JSON shape of the discovery schema Change.
type changeJSON struct {
	Kind      string      `json:"kind"`
	ID        string      `json:"id"`
	StartTime string      `json:"startTime"`
	Status    string      `json:"status"`
	Additions []rrsetJSON `json:"additions,omitempty"`
	Deletions []rrsetJSON `json:"deletions,omitempty"`
}

func renderChange(c *change, status string) changeJSON {
	out := changeJSON{Kind: "dns#change", ID: c.id, StartTime: c.start.Format(rfc3339Millis), Status: status}
	for _, r := range c.additions {
		out.Additions = append(out.Additions, renderRRSet(r))
	}
	for _, r := range c.deletions {
		out.Deletions = append(out.Deletions, renderRRSet(r))
	}
	return out
}

// changeInput is a Change request body. The output-only fields are
// declared because the generated client may send them back; Cloud DNS
// ignores them and so does the emulator.
type changeInput struct {
	Kind      string       `json:"kind"`
	Additions []rrsetInput `json:"additions"`
	Deletions []rrsetInput `json:"deletions"`
	ID        string       `json:"id"`
	IsServing *bool        `json:"isServing"`
	StartTime string       `json:"startTime"`
	Status    string       `json:"status"`
}

// decodeStrict decodes a JSON body, refusing fields the schema does not
// have in the wording Google's front end uses.
func decodeStrict(body []byte, v any, what string) *apiError {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		msg := err.Error()
		if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
			return newErr(http.StatusBadRequest, "invalid", "Invalid JSON payload received. Unknown name "+f+" at '"+what+"': Cannot find field.")
		}
		return newErr(http.StatusBadRequest, "parseError", "Invalid JSON payload received: "+msg)
	}
	if dec.More() {
		return newErr(http.StatusBadRequest, "parseError", "Invalid JSON payload received: more than one JSON value")
	}
	return nil
}

// createChange is changes.create: all deletions, then all additions, as one
// transaction. A deletion must match the existing set exactly (ttl and
// rrdatas) or the change fails with 412 conditionNotMet; an addition of an
// existing name and type fails with 409 alreadyExists; nothing is applied
// unless everything is.
func (s *Server) createChange(rq *request) (any, *apiError) {
	z, e := zoneParam(rq)
	if e != nil {
		return nil, e
	}
	if z.peeringTarget != "" {
		return nil, newErr(http.StatusBadRequest, "invalid", "The managed zone '"+z.name+"' is a peering zone; its records cannot be changed.")
	}
	var in changeInput
	if e := decodeStrict(rq.body, &in, "change"); e != nil {
		return nil, e
	}
	if in.Kind != "" && in.Kind != "dns#change" {
		return nil, newErr(http.StatusBadRequest, "invalid", "Invalid value for 'entity.change.kind': '"+in.Kind+"'")
	}
	if len(in.Additions)+len(in.Deletions) == 0 {
		return nil, newErr(http.StatusBadRequest, "required", "The change must contain at least one addition or deletion ('entity.change.additions' and 'entity.change.deletions' are empty).")
	}
	if len(in.Additions) > maxAdditions || len(in.Deletions) > maxDeletions {
		return nil, newErr(http.StatusForbidden, "quotaExceeded", fmt.Sprintf("A change holds at most %d additions and %d deletions; this one has %d and %d.", maxAdditions, maxDeletions, len(in.Additions), len(in.Deletions)))
	}
	c := &change{id: strconv.Itoa(len(z.changes)), start: nowMillis(s.now())}
	size := 0
	for i, ri := range in.Deletions {
		r, e := buildRRSet(z, ri, fmt.Sprintf("entity.change.deletions[%d]", i))
		if e != nil {
			return nil, e
		}
		c.deletions = append(c.deletions, r)
		size += rrdataSize(r)
	}
	for i, ri := range in.Additions {
		r, e := buildRRSet(z, ri, fmt.Sprintf("entity.change.additions[%d]", i))
		if e != nil {
			return nil, e
		}
		c.additions = append(c.additions, r)
		size += rrdataSize(r)
	}
	if size > maxRrdataBytes {
		return nil, newErr(http.StatusForbidden, "quotaExceeded", fmt.Sprintf("The change holds %d bytes of rrdata; at most %d are allowed.", size, maxRrdataBytes))
	}
	next, e := applyChange(z, c)
	if e != nil {
		return nil, e
	}
	if e := s.changeFailureLocked(z, c); e != nil {
		return nil, e
	}
	z.rrsets = next
	z.changes = append(z.changes, c)
	return renderChange(c, "pending"), nil
}

func rrdataSize(r *rrset) int {
	n := 0
	for _, d := range r.rrdatas {
		n += len(d)
	}
	return n
}

// applyChange computes the zone's record sets after the change, or the
// error Cloud DNS gives for the first item that fails.
func applyChange(z *zone, c *change) (map[rrKey]*rrset, *apiError) {
	next := maps.Clone(z.rrsets)
	for i, d := range c.deletions {
		where := fmt.Sprintf("entity.change.deletions[%d]", i)
		cur, ok := next[d.key()]
		if !ok {
			return nil, newErr(http.StatusNotFound, "notFound", fmt.Sprintf("The 'entity.change.deletions[%d]' resource named '%s (%s)' does not exist.", i, d.name, d.typ))
		}
		if cur.ttl != d.ttl || !sameRrdatas(cur.rrdatas, d.rrdatas) {
			return nil, newErr(http.StatusPreconditionFailed, "conditionNotMet", "Precondition not met for '"+where+"'")
		}
		delete(next, d.key())
	}
	for i, a := range c.additions {
		if _, ok := next[a.key()]; ok {
			return nil, newErr(http.StatusConflict, "alreadyExists", fmt.Sprintf("The resource 'entity.change.additions[%d]' named '%s (%s)' already exists", i, a.name, a.typ))
		}
		next[a.key()] = a.clone()
	}
	if e := checkZoneRules(z, next, c); e != nil {
		return nil, e
	}
	return next, nil
}

// sameRrdatas compares two rrdata lists as sets (each list has no
// duplicates).
func sameRrdatas(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, d := range a {
		if !slices.Contains(b, d) {
			return false
		}
	}
	return true
}

// checkZoneRules enforces what must hold after every change: one SOA and
// one NS set at the apex (they can be replaced, not removed), no CNAME
// beside other data at a name, and the record set limit.
func checkZoneRules(z *zone, next map[rrKey]*rrset, c *change) *apiError {
	for _, typ := range []string{"SOA", "NS"} {
		if _, ok := next[rrKey{z.dnsName, typ}]; !ok {
			return newErr(http.StatusBadRequest, "invalid", "The change would remove the "+typ+" record set at the zone apex "+z.dnsName+"; it can be replaced but not deleted.")
		}
	}
	for i, a := range c.additions {
		if a.typ == "SOA" && a.name != z.dnsName {
			return newErr(http.StatusBadRequest, "invalid", fmt.Sprintf("Invalid value for 'entity.change.additions[%d].name': '%s' (an SOA record set is only allowed at the zone apex)", i, a.name))
		}
		// Only CNAME and the other types at the same name can conflict, so
		// look those keys up rather than scanning the zone.
		others := []string{"CNAME"}
		if a.typ == "CNAME" {
			others = slices.Collect(maps.Keys(supportedTypes))
			slices.Sort(others)
		}
		for _, typ := range others {
			if _, ok := next[rrKey{a.name, typ}]; ok && typ != a.typ {
				return newErr(http.StatusBadRequest, "invalid", fmt.Sprintf("The resource 'entity.change.additions[%d]' named '%s (%s)' cannot be created because a %s record set exists at that name; a CNAME cannot share its name with other data.", i, a.name, a.typ, typ))
			}
		}
	}
	if len(next) > maxRRSetsPerZone {
		return newErr(http.StatusForbidden, "quotaExceeded", fmt.Sprintf("The zone would hold %d record sets; at most %d are allowed (rrsetsPerManagedZone).", len(next), maxRRSetsPerZone))
	}
	return nil
}

// getChange is changes.get. Changes apply at once, so every change reads
// back as done.
func (s *Server) getChange(rq *request) (any, *apiError) {
	z, e := zoneParam(rq)
	if e != nil {
		return nil, e
	}
	id := rq.params["changeId"]
	n, err := strconv.Atoi(id)
	if err != nil || n < 0 || n >= len(z.changes) || strconv.Itoa(n) != id {
		return nil, newErr(http.StatusNotFound, "notFound", "The 'parameters.changeId' resource named '"+id+"' does not exist.")
	}
	return renderChange(z.changes[n], "done"), nil
}
