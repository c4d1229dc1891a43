package route53emu

import (
	"encoding/xml"
	"net/http"
	"sort"
)

type listResourceRecordSetsResponse struct {
	XMLName              xml.Name    `xml:"ListResourceRecordSetsResponse"`
	Xmlns                string      `xml:"xmlns,attr"`
	ResourceRecordSets   []RecordSet `xml:"ResourceRecordSets>ResourceRecordSet"`
	IsTruncated          bool        `xml:"IsTruncated"`
	NextRecordName       string      `xml:"NextRecordName,omitempty"`
	NextRecordType       string      `xml:"NextRecordType,omitempty"`
	NextRecordIdentifier string      `xml:"NextRecordIdentifier,omitempty"`
	MaxItems             string      `xml:"MaxItems"`
}

// listResourceRecordSets pages through the zone in canonical order: start at
// the first set ≥ (name, type, identifier); at most 300 per page, default 100;
// Next* only when truncated, NextRecordIdentifier only when that set has one.
func (s *Server) listResourceRecordSets(req request) (int, any, *apiError) {
	z, ok := s.st.zones[req.zoneID]
	if !ok {
		return 0, nil, noSuchHostedZone(req.zoneID)
	}
	q := req.http.URL.Query()
	max, echo, e := parseMaxItems(q, 100, 300)
	if e != nil {
		return 0, nil, e
	}
	startName, startType, startID := q.Get("name"), q.Get("type"), q.Get("identifier")
	if startType != "" && startName == "" {
		return 0, nil, invalidInput("The input is not valid: StartRecordType was specified without StartRecordName")
	}
	if startID != "" && startType == "" {
		return 0, nil, invalidInput("The input is not valid: StartRecordIdentifier was specified without StartRecordType")
	}
	if startType != "" && !rrTypes[startType] {
		return 0, nil, enumError(startType, rrTypeList)
	}
	all := z.listing()
	from := 0
	if startName != "" {
		n, err := normalizeName(startName)
		if err != nil {
			return 0, nil, invalidInput("The input is not valid: StartRecordName '" + startName + "' is not a valid DNS name (" + err.Error() + ")")
		}
		key := sortKey(n)
		from = sort.Search(len(all), func(i int) bool {
			a := all[i]
			return compareListing(a.sort, a.key.Type, a.key.SetID, key, startType, startID) >= 0
		})
	}
	resp := listResourceRecordSetsResponse{Xmlns: route53NS, MaxItems: echo, ResourceRecordSets: []RecordSet{}}
	end := min(from+max, len(all))
	for _, st := range all[from:end] {
		resp.ResourceRecordSets = append(resp.ResourceRecordSets, st.set)
	}
	if end < len(all) {
		next := all[end]
		resp.IsTruncated = true
		resp.NextRecordName = next.key.Name
		resp.NextRecordType = next.key.Type
		resp.NextRecordIdentifier = next.key.SetID
	}
	return http.StatusOK, resp, nil
}
