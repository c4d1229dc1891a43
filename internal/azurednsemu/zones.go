package azurednsemu

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
)

// publicNameServers are the name servers a new public zone lists (Azure
// assigns one set of four from its pool).
var publicNameServers = []string{"ns1-01.azure-dns.com.", "ns2-01.azure-dns.net.", "ns3-01.azure-dns.org.", "ns4-01.azure-dns.info."}

// zoneOut renders a zone as the API's Zone or PrivateZone JSON, with only
// the properties its swagger definition has.
func zoneOut(z *zone) map[string]any {
	tags := z.tags
	if tags == nil {
		tags = map[string]string{}
	}
	props := map[string]any{"maxNumberOfRecordSets": maxRecordSets(z.api), "numberOfRecordSets": len(z.sets)}
	if z.api == APIDNS {
		props["nameServers"] = publicNameServers
		props["zoneType"] = "Public"
	} else {
		reg := 0
		for _, l := range z.links {
			if l.registrationEnabled {
				reg++
			}
		}
		props["maxNumberOfVirtualNetworkLinks"] = 1000
		props["numberOfVirtualNetworkLinks"] = len(z.links)
		props["maxNumberOfVirtualNetworkLinksWithRegistration"] = 100
		props["numberOfVirtualNetworkLinksWithRegistration"] = reg
		props["provisioningState"] = "Succeeded"
		props["internalId"] = z.internalID
	}
	return map[string]any{"id": zoneID(z), "name": z.name, "type": zoneResourceType(z.api), "location": "global",
		"tags": tags, "etag": z.etag, "properties": props}
}

// getZone is Zones_Get and PrivateZones_Get.
func (s *Server) getZone(rq *request) (int, any, *armError) {
	z, e := s.st.findZone(rq.api(), rq.params["subscriptionId"], rq.params["resourceGroupName"], rq.zoneName())
	if e != nil {
		return 0, nil, e
	}
	return http.StatusOK, zoneOut(z), nil
}

// listZones is Zones_List / Zones_ListByResourceGroup and the private
// pair: the route without {resourceGroupName} lists the subscription.
func (s *Server) listZones(rq *request) (int, any, *armError) {
	sub, rg := rq.params["subscriptionId"], rq.params["resourceGroupName"]
	if _, _, e := s.st.findGroup(sub, rg); e != nil {
		return 0, nil, e
	}
	zones := s.st.zonesIn(rq.api(), sub, rg)
	page, next, e := pageOf(s, rq, zones, func(z *zone) string { return strings.ToLower(z.rg) + "\x00" + z.name })
	if e != nil {
		return 0, nil, e
	}
	out := make([]map[string]any, 0, len(page))
	for _, z := range page {
		out = append(out, zoneOut(z))
	}
	return http.StatusOK, listResult(out, next), nil
}

func linkOut(z *zone, l *vnetLink) map[string]any {
	return map[string]any{
		"id": zoneID(z) + "/virtualNetworkLinks/" + l.name, "name": l.name,
		"type": "Microsoft.Network/privateDnsZones/virtualNetworkLinks", "location": "global", "tags": map[string]string{}, "etag": l.etag,
		"properties": map[string]any{"virtualNetwork": map[string]string{"id": l.virtualNetwork}, "registrationEnabled": l.registrationEnabled,
			"virtualNetworkLinkState": "Completed", "provisioningState": "Succeeded"},
	}
}

// getLink is VirtualNetworkLinks_Get.
func (s *Server) getLink(rq *request) (int, any, *armError) {
	z, e := s.st.findZone(APIPrivateDNS, rq.params["subscriptionId"], rq.params["resourceGroupName"], rq.zoneName())
	if e != nil {
		return 0, nil, e
	}
	name := rq.params["virtualNetworkLinkName"]
	l, ok := z.links[strings.ToLower(name)]
	if !ok {
		return 0, nil, newErr(http.StatusNotFound, "ResourceNotFound", fmt.Sprintf("The Resource 'Microsoft.Network/privateDnsZones/%s/virtualNetworkLinks/%s' under resource group '%s' was not found.", z.name, name, z.rg))
	}
	return http.StatusOK, linkOut(z, l), nil
}

// listLinks is VirtualNetworkLinks_List.
func (s *Server) listLinks(rq *request) (int, any, *armError) {
	z, e := s.st.findZone(APIPrivateDNS, rq.params["subscriptionId"], rq.params["resourceGroupName"], rq.zoneName())
	if e != nil {
		return 0, nil, e
	}
	var links []*vnetLink
	for _, l := range z.links {
		links = append(links, l)
	}
	sortLinks(links)
	page, next, e := pageOf(s, rq, links, func(l *vnetLink) string { return strings.ToLower(l.name) })
	if e != nil {
		return 0, nil, e
	}
	out := make([]map[string]any, 0, len(page))
	for _, l := range page {
		out = append(out, linkOut(z, l))
	}
	return http.StatusOK, listResult(out, next), nil
}

func sortLinks(ls []*vnetLink) {
	sort.Slice(ls, func(i, j int) bool { return strings.ToLower(ls[i].name) < strings.ToLower(ls[j].name) })
}
