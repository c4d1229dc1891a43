package azurednsemu

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// maxBody bounds request bodies; a record set is far smaller.
const maxBody = 1 << 20

// request is one routed ARM call.
type request struct {
	http   *http.Request
	route  Route
	params map[string]string
	query  url.Values
	body   []byte
}

func (rq *request) api() string { return rq.route.API }

// zoneName is the zone path parameter of either API.
func (rq *request) zoneName() string {
	if v, ok := rq.params["privateZoneName"]; ok {
		return v
	}
	return rq.params["zoneName"]
}

// apiVersion is the api-version the route's swagger file has.
func apiVersion(api string) string {
	if api == APIPrivateDNS {
		return PrivateDNSAPIVersion
	}
	return DNSAPIVersion
}

// serveARM routes a Resource Manager call: route, bearer token,
// api-version, query parameters, injected faults and rate limit, then the
// handler. Every call is logged and counted.
func (s *Server) serveARM(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	s.mu.Lock()
	defer s.mu.Unlock()
	routes := routeTable()
	rt, params, known := match(routes, r.Method, r.URL.EscapedPath())
	fail := func(op string, e *armError) {
		s.record(r, op, params, e.status, e.code)
		writeError(w, e)
	}
	if rt.ID == "" {
		if known {
			fail(OpUnrouted, newErr(http.StatusMethodNotAllowed, "MethodNotAllowed", fmt.Sprintf("The requested resource does not support http method '%s'.", r.Method)))
			return
		}
		fail(OpUnrouted, newErr(http.StatusNotFound, "NotFound", "No Azure DNS or Private DNS operation has the path "+r.URL.Path+" (emulator)."))
		return
	}
	op := rt.Op()
	if err != nil || len(body) > maxBody {
		fail(op, newErr(http.StatusRequestEntityTooLarge, "RequestEntityTooLarge", "The request body is larger than 1 MiB or could not be read."))
		return
	}
	if e := s.authorizeLocked(r); e != nil {
		fail(op, e)
		return
	}
	q := r.URL.Query()
	if e := checkQuery(rt, q); e != nil {
		fail(op, e)
		return
	}
	if e := s.admitLocked(op, params); e != nil {
		fail(op, e)
		return
	}
	if !rt.Emulated {
		fail(op, newErr(http.StatusNotImplemented, "NotImplemented", "The emulator does not implement "+rt.ID+" ("+rt.API+" api-version "+apiVersion(rt.API)+")."))
		return
	}
	rq := &request{http: r, route: rt, params: params, query: q, body: body}
	status, out, e := rt.handler(s, rq)
	if e != nil {
		fail(op, e)
		return
	}
	s.record(r, op, params, status, "")
	writeJSON(w, status, out)
}

// checkQuery checks api-version (required, and the route's swagger
// version) and refuses query parameters the operation does not take.
func checkQuery(rt Route, q url.Values) *armError {
	v, ok := q["api-version"]
	if !ok || len(v) != 1 || v[0] == "" {
		return newErr(http.StatusBadRequest, "MissingApiVersionParameter", "The api-version query parameter (?api-version=) is required for all requests.")
	}
	if want := apiVersion(rt.API); v[0] != want {
		return newErr(http.StatusBadRequest, "NoRegisteredProviderFound", fmt.Sprintf(
			"No registered resource provider found for location 'global' and API version '%s' for type '%s'. The supported api-versions are '%s'.",
			v[0], strings.TrimPrefix(zoneResourceType(rt.API), "Microsoft.Network/"), want))
	}
	for k := range q {
		if k == "api-version" {
			continue
		}
		allowed := k == "$skipToken" && len(rt.Query) > 0
		for _, a := range rt.Query {
			allowed = allowed || strings.EqualFold(a, k)
		}
		if !allowed {
			return newErr(http.StatusBadRequest, "InvalidQueryParameter", fmt.Sprintf("%s does not take the query parameter '%s' (emulator).", rt.ID, k))
		}
	}
	return nil
}
