package googlednsemu

import (
	"net/http"
	"strconv"
)

// changesListJSON is the discovery schema ChangesListResponse.
type changesListJSON struct {
	Kind          string       `json:"kind"`
	Changes       []changeJSON `json:"changes"`
	NextPageToken string       `json:"nextPageToken,omitempty"`
}

// listChanges is changes.list: the zone's changes by change sequence (the only sortBy the document
// allows), ascending unless sortOrder is "descending", paged by maxResults and pageToken. Changes apply
// at once, so each reads back as done. With sortOrder=descending and maxResults=1 it answers the
// zone's latest change, which is what a client polls to see whether anyone changed the zone.
func (s *Server) listChanges(rq *request) (any, *apiError) {
	z, e := zoneParam(rq)
	if e != nil {
		return nil, e
	}
	if v := rq.query.Get("sortBy"); v != "" && v != "changeSequence" {
		return nil, newErr(http.StatusBadRequest, "invalid", "Invalid value for 'parameters.sortBy': '"+v+"' (the only value is changeSequence).")
	}
	order := rq.query.Get("sortOrder")
	switch order {
	case "", "ascending", "descending":
	default:
		return nil, newErr(http.StatusBadRequest, "invalid", "Invalid value for 'parameters.sortOrder': '"+order+"' (want ascending or descending).")
	}
	descending := order == "descending"
	size, e := s.pageSize(rq)
	if e != nil {
		return nil, e
	}
	filters := "sortOrder=" + order
	after, e := readPageToken(rq, filters)
	if e != nil {
		return nil, e
	}
	// Change ids are the sequence numbers 0, 1, 2, ... (createChange numbers them so).
	start, step := 0, 1
	if descending {
		start, step = len(z.changes)-1, -1
	}
	if after != "" {
		n, err := strconv.Atoi(after)
		if err != nil {
			return nil, newErr(http.StatusBadRequest, "invalid", "Invalid value for 'parameters.pageToken'.")
		}
		start = n + step
	}
	out := changesListJSON{Kind: "dns#changesListResponse", Changes: []changeJSON{}}
	for i := start; i >= 0 && i < len(z.changes); i += step {
		if len(out.Changes) == size {
			out.NextPageToken = makePageToken(filters, strconv.Itoa(i-step))
			break
		}
		out.Changes = append(out.Changes, renderChange(z.changes[i], "done"))
	}
	return out, nil
}
