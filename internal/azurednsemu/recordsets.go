package azurednsemu

import (
	"fmt"
	"net/http"
	"strings"
)

// setTarget resolves the zone, type and name of a record-set call.
func (s *Server) setTarget(rq *request) (*zone, setKey, string, *armError) {
	z, e := s.st.findZone(rq.api(), rq.params["subscriptionId"], rq.params["resourceGroupName"], rq.zoneName())
	if e != nil {
		return nil, setKey{}, "", e
	}
	typ, ok := canonicalType(rq.api(), rq.params["recordType"])
	if !ok {
		return nil, setKey{}, "", newErr(http.StatusBadRequest, "BadRequest", fmt.Sprintf("The record type '%s' is not one of %s.", rq.params["recordType"], strings.Join(recordTypes[rq.api()], ", ")))
	}
	name := rq.params["relativeRecordSetName"]
	if name != "" {
		if err := validName(name); err != nil {
			return nil, setKey{}, "", newErr(http.StatusBadRequest, "BadRequest", "relativeRecordSetName: "+err.Error())
		}
	}
	return z, setKey{name: strings.ToLower(name), typ: typ}, name, nil
}

func precondition(msg string) *armError {
	return newErr(http.StatusPreconditionFailed, "PreconditionFailed", msg)
}

// checkIfMatch applies If-Match: "*" needs the set to exist, an etag needs
// it to be the current one.
func checkIfMatch(rq *request, cur *recordSet, name string) *armError {
	h := rq.http.Header.Get("If-Match")
	if h == "" {
		return nil
	}
	if cur == nil {
		return precondition(fmt.Sprintf("The record set '%s' does not exist, so the If-Match condition '%s' was not met.", name, h))
	}
	if h != "*" && strings.Trim(h, `"`) != cur.etag {
		return precondition(fmt.Sprintf("The If-Match condition '%s' was not met: the current etag of record set '%s' is '%s'.", h, name, cur.etag))
	}
	return nil
}

func autoRegistered(r *recordSet) *armError {
	return newErr(http.StatusBadRequest, "BadRequest", fmt.Sprintf("The record set '%s' of type %s was registered automatically by a virtual network link and cannot be changed or deleted.", r.name, r.typ))
}

// putRecordSet is RecordSets_CreateOrUpdate: 201 when created, 200 when
// replaced, with If-Match and If-None-Match: * preconditions.
func (s *Server) putRecordSet(rq *request) (int, any, *armError) {
	z, key, name, e := s.setTarget(rq)
	if e != nil {
		return 0, nil, e
	}
	cur := z.sets[key]
	if e := checkIfMatch(rq, cur, name); e != nil {
		return 0, nil, e
	}
	if rq.http.Header.Get("If-None-Match") == "*" && cur != nil {
		return 0, nil, precondition(fmt.Sprintf("The record set '%s' of type %s exists already, so the If-None-Match condition '*' was not met.", cur.name, cur.typ))
	}
	if cur == nil && key.typ == "SOA" {
		return 0, nil, newErr(http.StatusBadRequest, "BadRequest", "Record sets of type SOA can be updated but not created.")
	}
	if cur != nil && cur.auto {
		return 0, nil, autoRegistered(cur)
	}
	var body wireRecordSet
	if err := decodeStrict(rq.body, &body); err != nil {
		return 0, nil, newErr(http.StatusBadRequest, "InvalidRequestContent", err.Error())
	}
	if err := body.Properties.checkFields(rq.api()); err != nil {
		return 0, nil, newErr(http.StatusBadRequest, "BadRequest", err.Error())
	}
	next := &recordSet{name: name, typ: key.typ}
	if cur != nil {
		next.name, next.soa = cur.name, cur.soa
	}
	if err := body.Properties.apply(rq.api(), next, false); err != nil {
		return 0, nil, newErr(http.StatusBadRequest, "BadRequest", err.Error())
	}
	if e := s.checkWrite(z, cur, next); e != nil {
		return 0, nil, e
	}
	status := http.StatusOK
	if cur == nil {
		status = http.StatusCreated
	}
	next.etag = s.st.nextETag()
	z.put(next)
	return status, wireOut(z, next), nil
}

// checkWrite validates a record set about to be stored: its records, the
// CNAME exclusivity, the zone's quota and injected write failures.
func (s *Server) checkWrite(z *zone, cur, next *recordSet) *armError {
	if err := next.validate(z.api); err != nil {
		return newErr(http.StatusBadRequest, "BadRequest", err.Error())
	}
	for _, typ := range recordTypes[z.api] {
		other, ok := z.sets[setKey{name: next.key().name, typ: typ}]
		if !ok || typ == next.typ {
			continue
		}
		if next.typ == "CNAME" || other.typ == "CNAME" {
			return newErr(http.StatusConflict, "Conflict", fmt.Sprintf("The record set '%s' of type %s cannot be written: a CNAME record set cannot share its name with another record set (%s exists).", next.name, next.typ, other.typ))
		}
	}
	if cur == nil && len(z.sets) >= maxRecordSets(z.api) {
		return newErr(http.StatusBadRequest, "BadRequest", fmt.Sprintf("The zone '%s' has reached its limit of %d record sets.", z.name, maxRecordSets(z.api)))
	}
	return s.writeFailureLocked(z, next.name, next.typ)
}

// updateRecordSet is RecordSets_Update (PATCH): the set must exist; fields
// the body has replace the stored ones.
func (s *Server) updateRecordSet(rq *request) (int, any, *armError) {
	z, key, name, e := s.setTarget(rq)
	if e != nil {
		return 0, nil, e
	}
	cur := z.sets[key]
	if e := checkIfMatch(rq, cur, name); e != nil {
		return 0, nil, e
	}
	if cur == nil {
		return 0, nil, notFound(z, key.typ, name)
	}
	if cur.auto {
		return 0, nil, autoRegistered(cur)
	}
	var body wireRecordSet
	if err := decodeStrict(rq.body, &body); err != nil {
		return 0, nil, newErr(http.StatusBadRequest, "InvalidRequestContent", err.Error())
	}
	if err := body.Properties.checkFields(rq.api()); err != nil {
		return 0, nil, newErr(http.StatusBadRequest, "BadRequest", err.Error())
	}
	next := *cur
	if err := body.Properties.apply(rq.api(), &next, true); err != nil {
		return 0, nil, newErr(http.StatusBadRequest, "BadRequest", err.Error())
	}
	if e := s.checkWrite(z, cur, &next); e != nil {
		return 0, nil, e
	}
	next.etag = s.st.nextETag()
	z.put(&next)
	return http.StatusOK, wireOut(z, &next), nil
}

// deleteRecordSet is RecordSets_Delete: 200 when deleted, 204 when there
// was nothing to delete.
func (s *Server) deleteRecordSet(rq *request) (int, any, *armError) {
	z, key, name, e := s.setTarget(rq)
	if e != nil {
		return 0, nil, e
	}
	cur := z.sets[key]
	if e := checkIfMatch(rq, cur, name); e != nil {
		return 0, nil, e
	}
	if cur == nil {
		return http.StatusNoContent, nil, nil
	}
	if cur.auto {
		return 0, nil, autoRegistered(cur)
	}
	if key.typ == "SOA" || (key.typ == "NS" && key.name == "@") {
		return 0, nil, newErr(http.StatusBadRequest, "BadRequest", fmt.Sprintf("The %s record set at the zone apex cannot be deleted.", key.typ))
	}
	if e := s.writeFailureLocked(z, cur.name, cur.typ); e != nil {
		return 0, nil, e
	}
	z.drop(key)
	return http.StatusOK, nil, nil
}

func notFound(z *zone, typ, name string) *armError {
	return newErr(http.StatusNotFound, "NotFound", fmt.Sprintf("The resource record '%s' of type %s does not exist in zone '%s' of resource group '%s'.", name, typ, z.name, z.rg))
}

// getRecordSet is RecordSets_Get.
func (s *Server) getRecordSet(rq *request) (int, any, *armError) {
	z, key, name, e := s.setTarget(rq)
	if e != nil {
		return 0, nil, e
	}
	cur := z.sets[key]
	if cur == nil {
		return 0, nil, notFound(z, key.typ, name)
	}
	return http.StatusOK, wireOut(z, cur), nil
}

// listRecordSets serves ListByType, ListByDnsZone, ListAllByDnsZone and
// the private List: ordered by name then type, filtered by
// $recordsetnamesuffix, paged with nextLink.
func (s *Server) listRecordSets(rq *request) (int, any, *armError) {
	z, e := s.st.findZone(rq.api(), rq.params["subscriptionId"], rq.params["resourceGroupName"], rq.zoneName())
	if e != nil {
		return 0, nil, e
	}
	typ := ""
	if t, ok := rq.params["recordType"]; ok {
		if typ, ok = canonicalType(rq.api(), t); !ok {
			return 0, nil, newErr(http.StatusBadRequest, "BadRequest", fmt.Sprintf("The record type '%s' is not one of %s.", t, strings.Join(recordTypes[rq.api()], ", ")))
		}
	}
	suffix := ""
	for k, v := range rq.query {
		if strings.EqualFold(k, "$recordsetnamesuffix") && len(v) > 0 {
			suffix = strings.ToLower(strings.TrimSuffix(v[0], "."))
		}
	}
	var sets []*recordSet
	for _, r := range z.sortedSets() {
		n := strings.ToLower(r.name)
		if (typ == "" || r.typ == typ) && (suffix == "" || n == suffix || strings.HasSuffix(n, "."+suffix)) {
			sets = append(sets, r)
		}
	}
	page, next, e := pageOf(s, rq, sets, func(r *recordSet) string { k := r.key(); return k.name + "\x00" + k.typ })
	if e != nil {
		return 0, nil, e
	}
	out := make([]map[string]any, 0, len(page))
	for _, r := range page {
		out = append(out, wireOut(z, r))
	}
	return http.StatusOK, listResult(out, next), nil
}
