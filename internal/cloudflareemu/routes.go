package cloudflareemu

import (
	"net/http"
	"strings"
)

// Operation names, used in the call log, the counters and fault matching.
// They follow the SDK's service and method names.
const (
	OpZonesList               = "zones.list"
	OpZonesGet                = "zones.get"
	OpRecordsList             = "dns_records.list"
	OpRecordsNew              = "dns_records.new"
	OpRecordsGet              = "dns_records.get"
	OpRecordsUpdate           = "dns_records.update" // PUT
	OpRecordsEdit             = "dns_records.edit"   // PATCH
	OpRecordsDelete           = "dns_records.delete"
	OpRecordsBatch            = "dns_records.batch"
	OpCustomHostnamesList     = "custom_hostnames.list"
	OpCustomHostnamesNew      = "custom_hostnames.new"
	OpCustomHostnamesGet      = "custom_hostnames.get"
	OpCustomHostnamesDelete   = "custom_hostnames.delete"
	OpRegionalHostnamesList   = "regional_hostnames.list"
	OpRegionalHostnamesNew    = "regional_hostnames.new"
	OpRegionalHostnamesGet    = "regional_hostnames.get"
	OpRegionalHostnamesEdit   = "regional_hostnames.edit"
	OpRegionalHostnamesDelete = "regional_hostnames.delete"
	// OpUnrouted counts requests to paths or methods the API does not have.
	OpUnrouted = "unrouted"
)

// Route is one emulated endpoint: method, path template relative to
// /client/v4 in the SDK's api.md notation, and operation name.
type Route struct {
	Method    string `json:"method"`
	Path      string `json:"path"`
	Operation string `json:"operation"`
	handler   handlerFunc
}

// request is what a handler gets: path parameters, query and body.
type request struct {
	op     string
	params map[string]string
	r      *http.Request
	body   []byte
}

// handlerFunc runs with the server lock held and returns the result (with
// paging information for lists) or an error.
type handlerFunc func(s *Server, req request) (any, *resultInfo, *apiError)

// routes is the table of emulated endpoints.
func routes() []Route {
	return []Route{
		{http.MethodGet, "/zones", OpZonesList, (*Server).listZones},
		{http.MethodGet, "/zones/{zone_id}", OpZonesGet, (*Server).getZone},
		{http.MethodGet, "/zones/{zone_id}/dns_records", OpRecordsList, (*Server).listRecords},
		{http.MethodPost, "/zones/{zone_id}/dns_records", OpRecordsNew, (*Server).newRecord},
		{http.MethodPost, "/zones/{zone_id}/dns_records/batch", OpRecordsBatch, (*Server).batchRecords},
		{http.MethodGet, "/zones/{zone_id}/dns_records/{dns_record_id}", OpRecordsGet, (*Server).getRecord},
		{http.MethodPut, "/zones/{zone_id}/dns_records/{dns_record_id}", OpRecordsUpdate, (*Server).updateRecord},
		{http.MethodPatch, "/zones/{zone_id}/dns_records/{dns_record_id}", OpRecordsEdit, (*Server).editRecord},
		{http.MethodDelete, "/zones/{zone_id}/dns_records/{dns_record_id}", OpRecordsDelete, (*Server).deleteRecord},
		{http.MethodGet, "/zones/{zone_id}/custom_hostnames", OpCustomHostnamesList, (*Server).listCustomHostnames},
		{http.MethodPost, "/zones/{zone_id}/custom_hostnames", OpCustomHostnamesNew, (*Server).newCustomHostname},
		{http.MethodGet, "/zones/{zone_id}/custom_hostnames/{custom_hostname_id}", OpCustomHostnamesGet, (*Server).getCustomHostname},
		{http.MethodDelete, "/zones/{zone_id}/custom_hostnames/{custom_hostname_id}", OpCustomHostnamesDelete, (*Server).deleteCustomHostname},
		{http.MethodGet, "/zones/{zone_id}/addressing/regional_hostnames", OpRegionalHostnamesList, (*Server).listRegionalHostnames},
		{http.MethodPost, "/zones/{zone_id}/addressing/regional_hostnames", OpRegionalHostnamesNew, (*Server).newRegionalHostname},
		{http.MethodGet, "/zones/{zone_id}/addressing/regional_hostnames/{hostname}", OpRegionalHostnamesGet, (*Server).getRegionalHostname},
		{http.MethodPatch, "/zones/{zone_id}/addressing/regional_hostnames/{hostname}", OpRegionalHostnamesEdit, (*Server).editRegionalHostname},
		{http.MethodDelete, "/zones/{zone_id}/addressing/regional_hostnames/{hostname}", OpRegionalHostnamesDelete, (*Server).deleteRegionalHostname},
	}
}

// Routes lists the emulated endpoints (without handlers), for tests that
// compare them with the SDK's api.md.
func Routes() []Route {
	rs := routes()
	for i := range rs {
		rs[i].handler = nil
	}
	return rs
}

// match finds the route for method and the path below /client/v4. A literal
// segment beats a parameter, so ".../dns_records/batch" is the batch route.
// pathKnown is true when some route has the path but not the method.
func match(method, path string) (route Route, params map[string]string, pathKnown bool) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	best := -1
	for _, rt := range routes() {
		p, literals, ok := matchTemplate(rt.Path, segs)
		if !ok {
			continue
		}
		if rt.Method != method {
			pathKnown = true
			continue
		}
		if literals > best {
			best, route, params = literals, rt, p
		}
	}
	if best >= 0 {
		return route, params, true
	}
	return Route{}, nil, pathKnown
}

func matchTemplate(tmpl string, segs []string) (map[string]string, int, bool) {
	parts := strings.Split(strings.Trim(tmpl, "/"), "/")
	if len(parts) != len(segs) {
		return nil, 0, false
	}
	params := map[string]string{}
	literals := 0
	for i, p := range parts {
		if strings.HasPrefix(p, "{") {
			if segs[i] == "" {
				return nil, 0, false
			}
			params[strings.Trim(p, "{}")] = segs[i]
			continue
		}
		if p != segs[i] {
			return nil, 0, false
		}
		literals++
	}
	return params, literals, true
}
