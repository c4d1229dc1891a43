package cloudflareemu

import (
	"fmt"
	"net/http"
)

// shadowParam is accepted by every dns_records endpoint; the emulator has no
// shadowed records, so meta stays empty either way.
const shadowParam = "include_shadow_metadata"

func (s *Server) newRecord(req request) (any, *resultInfo, *apiError) {
	if e := checkQuery(req.r.URL.Query(), []string{shadowParam}); e != nil {
		return nil, nil, e
	}
	z, e := s.zoneLocked(req)
	if e != nil {
		return nil, nil, e
	}
	in, e := parseRecordInput(req.body, false)
	if e != nil {
		return nil, nil, e
	}
	r, e := buildRecord(z, nil, in, false, s.now())
	if e != nil {
		return nil, nil, e
	}
	if e := s.batchFailureLocked(z.id, r.name, r.typ, true); e != nil {
		return nil, nil, e
	}
	if e := checkConflicts(z.records, r); e != nil {
		return nil, nil, e
	}
	z.records[r.id] = r
	return renderRecord(r), nil, nil
}

func (s *Server) recordLocked(req request) (*zone, *record, *apiError) {
	z, e := s.zoneLocked(req)
	if e != nil {
		return nil, nil, e
	}
	r, ok := z.records[req.params["dns_record_id"]]
	if !ok {
		return nil, nil, newErr(http.StatusNotFound, CodeRecordNotFound, msgNotFound)
	}
	return z, r, nil
}

func (s *Server) getRecord(req request) (any, *resultInfo, *apiError) {
	if e := checkQuery(req.r.URL.Query(), []string{shadowParam}); e != nil {
		return nil, nil, e
	}
	_, r, e := s.recordLocked(req)
	if e != nil {
		return nil, nil, e
	}
	return renderRecord(r), nil, nil
}

func (s *Server) updateRecord(req request) (any, *resultInfo, *apiError) {
	return s.changeRecord(req, false)
}

func (s *Server) editRecord(req request) (any, *resultInfo, *apiError) {
	return s.changeRecord(req, true)
}

// changeRecord is PUT (patch=false: the body is the whole record) and PATCH.
func (s *Server) changeRecord(req request, patch bool) (any, *resultInfo, *apiError) {
	if e := checkQuery(req.r.URL.Query(), []string{shadowParam}); e != nil {
		return nil, nil, e
	}
	z, old, e := s.recordLocked(req)
	if e != nil {
		return nil, nil, e
	}
	in, e := parseRecordInput(req.body, false)
	if e != nil {
		return nil, nil, e
	}
	r, e := buildRecord(z, old, in, patch, s.now())
	if e != nil {
		return nil, nil, e
	}
	if e := s.batchFailureLocked(z.id, r.name, r.typ, true); e != nil {
		return nil, nil, e
	}
	if e := checkConflicts(z.records, r); e != nil {
		return nil, nil, e
	}
	z.records[r.id] = r
	return renderRecord(r), nil, nil
}

func (s *Server) deleteRecord(req request) (any, *resultInfo, *apiError) {
	if e := checkQuery(req.r.URL.Query(), nil); e != nil {
		return nil, nil, e
	}
	z, r, e := s.recordLocked(req)
	if e != nil {
		return nil, nil, e
	}
	if e := s.batchFailureLocked(z.id, r.name, r.typ, true); e != nil {
		return nil, nil, e
	}
	delete(z.records, r.id)
	return map[string]string{"id": r.id}, nil, nil
}

// checkConflicts applies Cloudflare's uniqueness rules to cand against the
// zone's other records: no identical record (same type, name and content),
// and a CNAME is alone at its name.
func checkConflicts(records map[string]*record, cand *record) *apiError {
	for _, o := range records {
		if o.id == cand.id || o.name != cand.name {
			continue
		}
		switch {
		case o.typ == cand.typ && o.content == cand.content:
			return newErr(http.StatusBadRequest, CodeIdenticalRecord, msgIdentical)
		case cand.typ == "CNAME":
			return newErr(http.StatusBadRequest, CodeCNAMEConflict, fmt.Sprintf("An A, AAAA, or CNAME record with that host already exists. (%s %s is in the way of CNAME %s)", o.typ, o.name, cand.name))
		case o.typ == "CNAME":
			return newErr(http.StatusBadRequest, CodeCNAMEExists, fmt.Sprintf("A CNAME record with that host already exists. (%s %s cannot be added next to it)", cand.typ, cand.name))
		}
	}
	return nil
}
