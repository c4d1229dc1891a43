package azurednsemu

import (
	"net/url"
	"strings"
)

// API names the two swagger files; operation names are "API/operationId"
// because both files have RecordSets_* operations.
const (
	APIDNS        = "dns"
	APIPrivateDNS = "privatedns"
)

// Route is one operation of a swagger file: its API, operationId, HTTP verb
// and path template, and whether the emulator serves it.
type Route struct {
	API      string `json:"api"`
	ID       string `json:"operationId"`
	Method   string `json:"method"`
	Path     string `json:"path"`
	Emulated bool   `json:"emulated"`
	// Query lists the query parameters the operation takes besides
	// api-version.
	Query   []string `json:"query,omitempty"`
	handler handler
}

// Op is the operation name used in the call log, counters and faults.
func (r Route) Op() string { return r.API + "/" + r.ID }

type handler func(s *Server, rq *request) (int, any, *armError)

// Operation names (Route.Op) of the emulated operations the providers use,
// and of the non-ARM endpoints.
const (
	OpZonesListByResourceGroup        = "dns/Zones_ListByResourceGroup"
	OpRecordSetsListAllByDNSZone      = "dns/RecordSets_ListAllByDnsZone"
	OpRecordSetsCreateOrUpdate        = "dns/RecordSets_CreateOrUpdate"
	OpRecordSetsDelete                = "dns/RecordSets_Delete"
	OpPrivateZonesListByResourceGroup = "privatedns/PrivateZones_ListByResourceGroup"
	OpPrivateRecordSetsList           = "privatedns/RecordSets_List"
	OpPrivateRecordSetsCreateOrUpdate = "privatedns/RecordSets_CreateOrUpdate"
	OpPrivateRecordSetsDelete         = "privatedns/RecordSets_Delete"
	OpAADInstanceDiscovery            = "aad/instanceDiscovery"
	OpAADOpenIDConfiguration          = "aad/openidConfiguration"
	OpAADToken                        = "aad/token"
	OpUnrouted                        = "unrouted"
)

const (
	pSub      = "/subscriptions/{subscriptionId}"
	pRG       = pSub + "/resourceGroups/{resourceGroupName}"
	pZones    = pRG + "/providers/Microsoft.Network/dnsZones"
	pZone     = pZones + "/{zoneName}"
	pPZones   = pRG + "/providers/Microsoft.Network/privateDnsZones"
	pPZone    = pPZones + "/{privateZoneName}"
	pLinks    = pPZone + "/virtualNetworkLinks"
	listQuery = "$top"
)

// routeTable lists every operation of dns.json 2018-05-01 and privatedns.json
// 2024-06-01 (the route test checks it against testdata/ both ways).
// Operations without a handler answer 501 in the ARM envelope, so a client
// is never told that something it asked for happened.
func routeTable() []Route {
	dns := func(id, verb, path string, h handler, q ...string) Route {
		return Route{API: APIDNS, ID: id, Method: verb, Path: path, Emulated: h != nil, Query: q, handler: h}
	}
	prv := func(id, verb, path string, h handler, q ...string) Route {
		r := dns(id, verb, path, h, q...)
		r.API = APIPrivateDNS
		return r
	}
	rs := "/{recordType}/{relativeRecordSetName}"
	return []Route{
		dns("RecordSets_Update", "PATCH", pZone+rs, (*Server).updateRecordSet),
		dns("RecordSets_CreateOrUpdate", "PUT", pZone+rs, (*Server).putRecordSet),
		dns("RecordSets_Delete", "DELETE", pZone+rs, (*Server).deleteRecordSet),
		dns("RecordSets_Get", "GET", pZone+rs, (*Server).getRecordSet),
		dns("RecordSets_ListByType", "GET", pZone+"/{recordType}", (*Server).listRecordSets, listQuery, "$recordsetnamesuffix"),
		dns("RecordSets_ListByDnsZone", "GET", pZone+"/recordsets", (*Server).listRecordSets, listQuery, "$recordsetnamesuffix"),
		dns("RecordSets_ListAllByDnsZone", "GET", pZone+"/all", (*Server).listRecordSets, listQuery, "$recordsetnamesuffix"),
		dns("Zones_CreateOrUpdate", "PUT", pZone, nil),
		dns("Zones_Delete", "DELETE", pZone, nil),
		dns("Zones_Get", "GET", pZone, (*Server).getZone),
		dns("Zones_Update", "PATCH", pZone, nil),
		dns("Zones_ListByResourceGroup", "GET", pZones, (*Server).listZones, listQuery),
		dns("DnsResourceReference_GetByResourceIds", "POST", pSub+"/providers/Microsoft.Network/dnsResourceReferenceRequest", nil),
		dns("Zones_List", "GET", pSub+"/providers/Microsoft.Network/dnszones", (*Server).listZones, listQuery),

		prv("PrivateZones_CreateOrUpdate", "PUT", pPZone, nil),
		prv("PrivateZones_Update", "PATCH", pPZone, nil),
		prv("PrivateZones_Delete", "DELETE", pPZone, nil),
		prv("PrivateZones_Get", "GET", pPZone, (*Server).getZone),
		prv("PrivateZones_List", "GET", pSub+"/providers/Microsoft.Network/privateDnsZones", (*Server).listZones, listQuery),
		prv("PrivateZones_ListByResourceGroup", "GET", pPZones, (*Server).listZones, listQuery),
		prv("VirtualNetworkLinks_CreateOrUpdate", "PUT", pLinks+"/{virtualNetworkLinkName}", nil),
		prv("VirtualNetworkLinks_Update", "PATCH", pLinks+"/{virtualNetworkLinkName}", nil),
		prv("VirtualNetworkLinks_Delete", "DELETE", pLinks+"/{virtualNetworkLinkName}", nil),
		prv("VirtualNetworkLinks_Get", "GET", pLinks+"/{virtualNetworkLinkName}", (*Server).getLink),
		prv("VirtualNetworkLinks_List", "GET", pLinks, (*Server).listLinks, listQuery),
		prv("RecordSets_CreateOrUpdate", "PUT", pPZone+rs, (*Server).putRecordSet),
		prv("RecordSets_Update", "PATCH", pPZone+rs, (*Server).updateRecordSet),
		prv("RecordSets_Delete", "DELETE", pPZone+rs, (*Server).deleteRecordSet),
		prv("RecordSets_Get", "GET", pPZone+rs, (*Server).getRecordSet),
		prv("RecordSets_ListByType", "GET", pPZone+"/{recordType}", (*Server).listRecordSets, listQuery, "$recordsetnamesuffix"),
		prv("RecordSets_List", "GET", pPZone+"/ALL", (*Server).listRecordSets, listQuery, "$recordsetnamesuffix"),
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

// match finds the route for an escaped request path. ARM matches literal
// segments case-insensitively, and a literal segment ("all", "recordsets",
// "virtualNetworkLinks") wins over a "{recordType}" parameter, so the route
// with the most literal segments is taken. known reports whether some route
// has the path under another verb.
func match(routes []Route, method, escapedPath string) (rt Route, params map[string]string, known bool) {
	segs := strings.Split(strings.TrimSuffix(escapedPath, "/"), "/")
	best := -1
	for _, r := range routes {
		p, literals, ok := matchTemplate(r.Path, segs)
		if !ok {
			continue
		}
		if r.Method != method {
			known = true
			continue
		}
		if literals > best {
			rt, params, best = r, p, literals
		}
	}
	if best >= 0 {
		return rt, params, true
	}
	return Route{}, nil, known
}

func matchTemplate(tmpl string, segs []string) (map[string]string, int, bool) {
	ts := strings.Split(tmpl, "/")
	if len(ts) != len(segs) {
		return nil, 0, false
	}
	params := map[string]string{}
	literals := 0
	for i, t := range ts {
		seg, err := url.PathUnescape(segs[i])
		if err != nil {
			return nil, 0, false
		}
		if strings.HasPrefix(t, "{") {
			if seg == "" {
				return nil, 0, false
			}
			params[t[1:len(t)-1]] = seg
			continue
		}
		if !strings.EqualFold(seg, t) {
			return nil, 0, false
		}
		literals++
	}
	return params, literals, true
}
