package googlednsemu

import (
	"net/url"
	"strings"
)

// Route is one method of the discovery document: its id, HTTP verb and flat
// path template (relative to the root URL), whether the emulator serves it,
// and the query parameters it takes besides the standard ones.
type Route struct {
	ID       string   `json:"id"`
	Method   string   `json:"httpMethod"`
	Path     string   `json:"flatPath"`
	Emulated bool     `json:"emulated"`
	Query    []string `json:"query,omitempty"`
	// Write marks methods that need a read-write scope.
	Write   bool `json:"write,omitempty"`
	handler handler
}

type handler func(s *Server, rq *request) (any, *apiError)

// Operation names in the call log, counters and faults are the discovery
// method ids.
const (
	OpZonesList   = "dns.managedZones.list"
	OpZonesGet    = "dns.managedZones.get"
	OpRRSetsList  = "dns.resourceRecordSets.list"
	OpChangesPost = "dns.changes.create"
	OpChangesGet  = "dns.changes.get"
	OpChangesList = "dns.changes.list"
	OpToken       = "oauth2.token"
	OpUnrouted    = "unrouted"
)

const (
	pZones   = "dns/v1/projects/{project}/managedZones"
	pZone    = pZones + "/{managedZone}"
	pChanges = pZone + "/changes"
	pRRSets  = pZone + "/rrsets"
	pIam     = "dns/v1/projects/{projectsId}/managedZones/{managedZonesId}"
	pPolicy  = "dns/v1/projects/{project}/policies"
	pRespPol = "dns/v1/projects/{project}/responsePolicies"
	pRules   = pRespPol + "/{responsePolicy}/rules"
)

// routeTable lists every method of dns/v1 revision 20260219 (the route test
// checks it against the discovery document both ways). Methods without a
// handler answer 501 in Google's envelope, so a client is never told that
// something it asked for happened.
func routeTable() []Route {
	ro := func(id, verb, path string, h handler, q ...string) Route {
		return Route{ID: id, Method: verb, Path: path, Emulated: h != nil, Query: q, handler: h}
	}
	rw := func(id, verb, path string, h handler, q ...string) Route {
		r := ro(id, verb, path, h, q...)
		r.Write = true
		return r
	}
	return []Route{
		ro(OpZonesList, "GET", pZones, (*Server).listZones, "dnsName", "maxResults", "pageToken"),
		ro(OpZonesGet, "GET", pZone, (*Server).getZone, "clientOperationId"),
		rw("dns.managedZones.create", "POST", pZones, nil),
		rw("dns.managedZones.delete", "DELETE", pZone, nil),
		rw("dns.managedZones.patch", "PATCH", pZone, nil),
		rw("dns.managedZones.update", "PUT", pZone, nil),
		rw("dns.managedZones.getIamPolicy", "POST", pIam+":getIamPolicy", nil),
		rw("dns.managedZones.setIamPolicy", "POST", pIam+":setIamPolicy", nil),
		rw("dns.managedZones.testIamPermissions", "POST", pIam+":testIamPermissions", nil),
		ro(OpRRSetsList, "GET", pRRSets, (*Server).listRRSets, "filter", "maxResults", "name", "pageToken", "type"),
		rw("dns.resourceRecordSets.create", "POST", pRRSets, nil),
		ro("dns.resourceRecordSets.get", "GET", pRRSets+"/{name}/{type}", nil),
		rw("dns.resourceRecordSets.delete", "DELETE", pRRSets+"/{name}/{type}", nil),
		rw("dns.resourceRecordSets.patch", "PATCH", pRRSets+"/{name}/{type}", nil),
		rw(OpChangesPost, "POST", pChanges, (*Server).createChange, "clientOperationId"),
		ro(OpChangesGet, "GET", pChanges+"/{changeId}", (*Server).getChange, "clientOperationId"),
		ro(OpChangesList, "GET", pChanges, (*Server).listChanges, "maxResults", "pageToken", "sortBy", "sortOrder"),
		ro("dns.dnsKeys.get", "GET", pZone+"/dnsKeys/{dnsKeyId}", nil),
		ro("dns.dnsKeys.list", "GET", pZone+"/dnsKeys", nil),
		ro("dns.managedZoneOperations.get", "GET", pZone+"/operations/{operation}", nil),
		ro("dns.managedZoneOperations.list", "GET", pZone+"/operations", nil),
		ro("dns.projects.get", "GET", "dns/v1/projects/{project}", nil),
		rw("dns.policies.create", "POST", pPolicy, nil),
		rw("dns.policies.delete", "DELETE", pPolicy+"/{policy}", nil),
		ro("dns.policies.get", "GET", pPolicy+"/{policy}", nil),
		ro("dns.policies.list", "GET", pPolicy, nil),
		rw("dns.policies.patch", "PATCH", pPolicy+"/{policy}", nil),
		rw("dns.policies.update", "PUT", pPolicy+"/{policy}", nil),
		rw("dns.responsePolicies.create", "POST", pRespPol, nil),
		rw("dns.responsePolicies.delete", "DELETE", pRespPol+"/{responsePolicy}", nil),
		ro("dns.responsePolicies.get", "GET", pRespPol+"/{responsePolicy}", nil),
		ro("dns.responsePolicies.list", "GET", pRespPol, nil),
		rw("dns.responsePolicies.patch", "PATCH", pRespPol+"/{responsePolicy}", nil),
		rw("dns.responsePolicies.update", "PUT", pRespPol+"/{responsePolicy}", nil),
		rw("dns.responsePolicyRules.create", "POST", pRules, nil),
		rw("dns.responsePolicyRules.delete", "DELETE", pRules+"/{responsePolicyRule}", nil),
		ro("dns.responsePolicyRules.get", "GET", pRules+"/{responsePolicyRule}", nil),
		ro("dns.responsePolicyRules.list", "GET", pRules, nil),
		rw("dns.responsePolicyRules.patch", "PATCH", pRules+"/{responsePolicyRule}", nil),
		rw("dns.responsePolicyRules.update", "PUT", pRules+"/{responsePolicyRule}", nil),
	}
}

// Routes returns the route table without handlers, for the control API and
// the route test.
func Routes() []Route {
	out := routeTable()
	for i := range out {
		out[i].handler = nil
	}
	return out
}

// match finds the route for a request path (relative to "/", e.g.
// "dns/v1/projects/p/managedZones"), returning its path parameters. known
// reports whether some route has the path under another verb.
func match(routes []Route, method, escapedPath string) (rt Route, params map[string]string, known bool) {
	segs := strings.Split(escapedPath, "/")
	for _, r := range routes {
		p, ok := matchTemplate(r.Path, segs)
		if !ok {
			continue
		}
		if r.Method == method {
			return r, p, true
		}
		known = true
	}
	return Route{}, nil, known
}

// matchTemplate matches path segments against a flat path template whose
// segments are literals, "{param}" or "{param}:verb" (the IAM methods).
func matchTemplate(tmpl string, segs []string) (map[string]string, bool) {
	ts := strings.Split(tmpl, "/")
	if len(ts) != len(segs) {
		return nil, false
	}
	params := map[string]string{}
	for i, t := range ts {
		seg, err := url.PathUnescape(segs[i])
		if err != nil {
			return nil, false
		}
		if !strings.HasPrefix(t, "{") {
			if seg != t {
				return nil, false
			}
			continue
		}
		end := strings.Index(t, "}")
		name, suffix := t[1:end], t[end+1:]
		val, ok := strings.CutSuffix(seg, suffix)
		if !ok || val == "" || (suffix != "" && strings.Contains(val, ":")) {
			return nil, false
		}
		params[name] = val
	}
	return params, true
}
