package cloudflareemu

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// batchLimit is the number of changes one batch may carry: 200 on the Free
// plan, 3,500 on paid plans.
func batchLimit(plan string) int {
	if plan == "free" {
		return 200
	}
	return 3500
}

// CodeBatchTooLarge is the emulator's code for a batch over the plan limit.
const CodeBatchTooLarge = 9017

type batchBody struct {
	Deletes []json.RawMessage `json:"deletes"`
	Patches []json.RawMessage `json:"patches"`
	Puts    []json.RawMessage `json:"puts"`
	Posts   []json.RawMessage `json:"posts"`
}

type batchResult struct {
	Deletes []recordJSON `json:"deletes"`
	Patches []recordJSON `json:"patches"`
	Puts    []recordJSON `json:"puts"`
	Posts   []recordJSON `json:"posts"`
}

// batchRecords implements POST dns_records/batch: one transaction applied in
// the order deletes → patches → puts → posts, each item seeing the effect of
// the ones before it. Any refused item fails the whole batch (nothing is
// applied) with the item's error and a source pointer such as "/posts/3".
func (s *Server) batchRecords(req request) (any, *resultInfo, *apiError) {
	z, e := s.zoneLocked(req)
	if e != nil {
		return nil, nil, e
	}
	if e := checkQuery(req.r.URL.Query(), []string{shadowParam}); e != nil {
		return nil, nil, e
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(req.body, &top); err != nil || top == nil {
		return nil, nil, newErr(400, CodeInvalidJSON, "Batch body is not a JSON object with deletes, patches, puts and posts")
	}
	for k := range top {
		switch k {
		case "deletes", "patches", "puts", "posts":
		default:
			return nil, nil, newErr(400, CodeUnknownField, fmt.Sprintf("Unknown batch field %q; known: deletes, patches, puts, posts", k))
		}
	}
	var body batchBody
	if err := json.Unmarshal(req.body, &body); err != nil {
		return nil, nil, newErr(400, CodeInvalidJSON, "Batch body: "+err.Error())
	}
	n := len(body.Deletes) + len(body.Patches) + len(body.Puts) + len(body.Posts)
	if limit := batchLimit(z.plan); n > limit {
		return nil, nil, newErr(400, CodeBatchTooLarge, fmt.Sprintf("Batch has %d changes; the %s plan allows %d per batch", n, z.plan, limit))
	}

	now := s.now()
	wc := make(map[string]*record, len(z.records))
	for id, r := range z.records {
		wc[id] = r
	}
	res := batchResult{Deletes: []recordJSON{}, Patches: []recordJSON{}, Puts: []recordJSON{}, Posts: []recordJSON{}}
	// Injected failures are checked after all items validate, so a batch
	// with a genuinely invalid item reports that item first.
	var touched []*record
	for i, raw := range body.Deletes {
		ptr := fmt.Sprintf("/deletes/%d", i)
		var d struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(raw, &d); err != nil || d.ID == "" {
			return nil, nil, newErr(400, CodeInvalidJSON, "Delete item needs an id").withPointer(ptr)
		}
		old, ok := wc[d.ID]
		if !ok {
			return nil, nil, newErr(http.StatusNotFound, CodeRecordNotFound, msgNotFound).withPointer(ptr)
		}
		delete(wc, d.ID)
		touched = append(touched, old)
		res.Deletes = append(res.Deletes, renderRecord(old))
	}
	for _, kind := range []struct {
		name  string
		items []json.RawMessage
		patch bool
		out   *[]recordJSON
	}{{"patches", body.Patches, true, &res.Patches}, {"puts", body.Puts, false, &res.Puts}} {
		for i, raw := range kind.items {
			ptr := fmt.Sprintf("/%s/%d", kind.name, i)
			in, e := parseRecordInput(raw, true)
			if e != nil {
				return nil, nil, e.withPointer(ptr)
			}
			if !in.ID.set || in.ID.null || in.ID.v == "" {
				return nil, nil, newErr(400, CodeInvalidJSON, "Item needs the id of the record to change").withPointer(ptr)
			}
			old, ok := wc[in.ID.v]
			if !ok {
				return nil, nil, newErr(http.StatusNotFound, CodeRecordNotFound, msgNotFound).withPointer(ptr)
			}
			r, e := buildRecord(z, old, in, kind.patch, now)
			if e != nil {
				return nil, nil, e.withPointer(ptr)
			}
			if e := checkConflicts(wc, r); e != nil {
				return nil, nil, e.withPointer(ptr)
			}
			wc[r.id] = r
			touched = append(touched, r)
			*kind.out = append(*kind.out, renderRecord(r))
		}
	}
	for i, raw := range body.Posts {
		ptr := fmt.Sprintf("/posts/%d", i)
		in, e := parseRecordInput(raw, false)
		if e != nil {
			return nil, nil, e.withPointer(ptr)
		}
		r, e := buildRecord(z, nil, in, false, now)
		if e != nil {
			return nil, nil, e.withPointer(ptr)
		}
		if e := checkConflicts(wc, r); e != nil {
			return nil, nil, e.withPointer(ptr)
		}
		wc[r.id] = r
		touched = append(touched, r)
		res.Posts = append(res.Posts, renderRecord(r))
	}
	for _, r := range touched {
		if e := s.batchFailureLocked(z.id, r.name, r.typ, false); e != nil {
			return nil, nil, e
		}
	}
	z.records = wc
	return res, nil, nil
}
