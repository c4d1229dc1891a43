package googlednsemu

import (
	"io"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
)

// maxBody bounds request bodies; a change of 1,000 additions and 1,000
// deletions of 100,000 bytes of rrdata is well under it.
const maxBody = 8 << 20

// request is one routed API call as handlers see it.
type request struct {
	params  map[string]string
	query   url.Values
	body    []byte
	project *project
}

// standardQuery are the parameters every method of the discovery document
// takes ("parameters" at its top level).
var standardQuery = []string{"$.xgafv", "access_token", "alt", "callback", "fields", "key", "oauth_token", "prettyPrint", "quotaUser", "uploadType", "upload_protocol"}

// serveAPI answers one Cloud DNS API request.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	rel := strings.TrimPrefix(r.URL.EscapedPath(), "/")
	rt, params, known := match(s.routes(), r.Method, rel)
	body, readErr := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	s.mu.Lock()
	defer s.mu.Unlock()
	fail := func(op string, e *apiError) {
		s.record(r, op, params, e.status, e.reason)
		writeError(w, e)
	}
	if rt.ID == "" {
		msg := "The requested URL /" + rel + " was not found on this server."
		if known {
			msg = "Method " + r.Method + " is not allowed for /" + rel + "."
		}
		fail(OpUnrouted, newErr(http.StatusNotFound, "notFound", msg))
		return
	}
	scopes, e := s.authenticateLocked(r)
	if e != nil {
		fail(rt.ID, e)
		return
	}
	if e := checkScope(scopes, rt.Write); e != nil {
		fail(rt.ID, e)
		return
	}
	if rt.handler == nil {
		fail(rt.ID, newErr(http.StatusNotImplemented, "notImplemented",
			"Method "+rt.ID+" ("+rt.Method+" /"+rt.Path+") is not implemented by the Cloud DNS emulator."))
		return
	}
	if e := s.admitLocked(rt.ID, params); e != nil {
		fail(rt.ID, e)
		return
	}
	q := r.URL.Query()
	if e := checkQuery(q, rt); e != nil {
		fail(rt.ID, e)
		return
	}
	if readErr != nil || len(body) > maxBody {
		fail(rt.ID, newErr(http.StatusRequestEntityTooLarge, "invalid", "The request body could not be read or is larger than 8 MiB."))
		return
	}
	p := s.st.projects[params["project"]]
	if p == nil {
		fail(rt.ID, newErr(http.StatusNotFound, "notFound", "The 'parameters.project' resource named '"+params["project"]+"' does not exist."))
		return
	}
	out, e := rt.handler(s, &request{params: params, query: q, body: body, project: p})
	if e != nil {
		fail(rt.ID, e)
		return
	}
	s.record(r, rt.ID, params, http.StatusOK, "")
	writeJSON(w, out)
}

// routes is the route table; it is rebuilt per call because it is small and
// holds no state.
func (s *Server) routes() []Route { return routeTable() }

// checkQuery refuses query parameters the method does not take, and values
// of the standard ones the emulator does not honour, instead of ignoring
// them.
func checkQuery(q url.Values, rt Route) *apiError {
	names := make([]string, 0, len(q))
	for k := range q {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !slices.Contains(standardQuery, k) && !slices.Contains(rt.Query, k) {
			return newErr(http.StatusBadRequest, "invalid", "Invalid JSON payload received. Unknown name \""+k+"\": Cannot bind query parameter. Field '"+k+"' could not be found in request message.")
		}
	}
	if v := q.Get("alt"); v != "" && v != "json" {
		return newErr(http.StatusBadRequest, "invalid", "Invalid value for parameter 'alt': the emulator answers only alt=json, got '"+v+"'.")
	}
	for _, k := range []string{"fields", "callback", "$.xgafv", "uploadType", "upload_protocol", "clientOperationId"} {
		if q.Get(k) != "" {
			return newErr(http.StatusBadRequest, "invalid", "Query parameter '"+k+"' is not supported by the Cloud DNS emulator.")
		}
	}
	return nil
}
