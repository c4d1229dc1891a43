package route53emu

import (
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

const apiPrefix = "/2013-04-01/"

// maxBody bounds request bodies; a 1000-change batch is well under 1 MiB.
const maxBody = 16 << 20

// request is a routed Route 53 call.
type request struct {
	op     string
	zoneID string // bare zone id from the path, if any
	id     string // change id, or tag resource id
	rtype  string // tag resource type
	http   *http.Request
	body   []byte
}

// route maps method and path to an operation. Path segments are split on the
// escaped path so that an id sent as "%2Fhostedzone%2FZ1" stays one segment;
// ids with their prefix written out as plain segments are accepted too.
func route(r *http.Request) (request, bool) {
	raw := strings.TrimPrefix(r.URL.EscapedPath(), apiPrefix)
	var seg []string
	for _, p := range strings.Split(raw, "/") {
		if p == "" {
			continue
		}
		u, err := url.PathUnescape(p)
		if err != nil {
			return request{}, false
		}
		seg = append(seg, u)
	}
	if len(seg) >= 3 && seg[0] == "hostedzone" && seg[1] == "hostedzone" {
		seg = append(seg[:1], seg[2:]...)
	}
	if len(seg) == 3 && seg[0] == "change" && seg[1] == "change" {
		seg = append(seg[:1], seg[2:]...)
	}
	if len(seg) == 4 && seg[0] == "tags" && seg[2] == seg[1] {
		seg = append(seg[:2], seg[3:]...)
	}
	req := request{http: r}
	m := r.Method
	switch {
	case len(seg) == 1 && seg[0] == "hostedzone" && m == http.MethodGet:
		req.op = "ListHostedZones"
	case len(seg) == 1 && seg[0] == "hostedzone" && m == http.MethodPost:
		req.op = "CreateHostedZone"
	case len(seg) == 1 && seg[0] == "hostedzonesbyname" && m == http.MethodGet:
		req.op = "ListHostedZonesByName"
	case len(seg) == 2 && seg[0] == "hostedzone" && m == http.MethodGet:
		req.op, req.zoneID = "GetHostedZone", bareID(seg[1])
	case len(seg) == 2 && seg[0] == "hostedzone" && m == http.MethodDelete:
		req.op, req.zoneID = "DeleteHostedZone", bareID(seg[1])
	case len(seg) == 3 && seg[0] == "hostedzone" && seg[2] == "rrset" && m == http.MethodGet:
		req.op, req.zoneID = "ListResourceRecordSets", bareID(seg[1])
	case len(seg) == 3 && seg[0] == "hostedzone" && seg[2] == "rrset" && m == http.MethodPost:
		req.op, req.zoneID = "ChangeResourceRecordSets", bareID(seg[1])
	case len(seg) == 2 && seg[0] == "change" && m == http.MethodGet:
		req.op, req.id = "GetChange", bareID(seg[1])
	case len(seg) == 2 && seg[0] == "tags" && m == http.MethodPost:
		req.op, req.rtype = "ListTagsForResources", seg[1]
	case len(seg) == 3 && seg[0] == "tags" && m == http.MethodGet:
		req.op, req.rtype, req.id = "ListTagsForResource", seg[1], bareID(seg[2])
	case len(seg) == 3 && seg[0] == "tags" && m == http.MethodPost:
		req.op, req.rtype, req.id = "ChangeTagsForResource", seg[1], bareID(seg[2])
	default:
		return req, false
	}
	if req.rtype == "hostedzone" {
		req.zoneID = req.id
	}
	return req, true
}

// serveRoute53 runs one Route 53 call: authentication, injected faults and
// rate limit, the operation, then the call log.
func (s *Server) serveRoute53(w http.ResponseWriter, r *http.Request) {
	requestID := newRequestID()
	w.Header().Set("x-amzn-RequestId", requestID)
	req, ok := route(r)
	if !ok {
		s.mu.Lock()
		s.record(r, request{op: "Unknown"}, requestID, http.StatusNotFound, "UnknownOperationException", "")
		s.mu.Unlock()
		writeError(w, route53NS, requestID, newErr(http.StatusNotFound, "UnknownOperationException",
			"The operation "+r.Method+" "+r.URL.Path+" is not part of the Route 53 API 2013-04-01"))
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		writeError(w, route53NS, requestID, invalidInput("Invalid request: could not read the request body: "+err.Error()))
		return
	}
	req.body = body

	s.mu.Lock()
	defer s.mu.Unlock()
	principal := s.principalLocked(r)
	status, resp, apiErr := 0, any(nil), s.admitLocked(r, req, principal)
	if apiErr == nil {
		status, resp, apiErr = s.dispatchLocked(req)
	}
	if apiErr != nil {
		s.record(r, req, requestID, apiErr.Status, apiErr.Code, principal.accessKey)
		writeError(w, route53NS, requestID, apiErr)
		return
	}
	s.record(r, req, requestID, status, "", principal.accessKey)
	if loc, ok := resp.(located); ok {
		w.Header().Set("Location", loc.location())
	}
	writeXML(w, status, resp)
}

// located is a response that carries a Location header (CreateHostedZone).
type located interface{ location() string }

func (s *Server) dispatchLocked(req request) (int, any, *apiError) {
	switch req.op {
	case "ListHostedZones":
		return s.listHostedZones(req)
	case "ListHostedZonesByName":
		return s.listHostedZonesByName(req)
	case "GetHostedZone":
		return s.getHostedZone(req)
	case "CreateHostedZone":
		return s.createHostedZone(req)
	case "DeleteHostedZone":
		return s.deleteHostedZone(req)
	case "ListResourceRecordSets":
		return s.listResourceRecordSets(req)
	case "ChangeResourceRecordSets":
		return s.changeResourceRecordSets(req)
	case "GetChange":
		return s.getChange(req)
	case "ListTagsForResource":
		return s.listTagsForResource(req)
	case "ListTagsForResources":
		return s.listTagsForResources(req)
	case "ChangeTagsForResource":
		return s.changeTagsForResource(req)
	}
	return 0, nil, newErr(http.StatusNotFound, "UnknownOperationException", "Unknown operation "+req.op)
}

// parseMaxItems reads the maxitems query parameter: absent → def; values
// above limit are clamped silently (the response echoes what was asked).
func parseMaxItems(q url.Values, def, limit int) (int, string, *apiError) {
	raw := q.Get("maxitems")
	if raw == "" {
		return def, strconv.Itoa(def), nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 {
		return 0, "", invalidInput("1 validation error detected: Value '" + raw +
			"' at 'maxItems' failed to satisfy constraint: Member must be a positive integer")
	}
	if n > limit {
		n = limit
	}
	return n, raw, nil
}
