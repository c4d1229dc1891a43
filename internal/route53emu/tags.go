package route53emu

import (
	"encoding/xml"
	"fmt"
	"net/http"
	"sort"
)

type (
	listTagsForResourceResponse struct {
		XMLName        xml.Name          `xml:"ListTagsForResourceResponse"`
		Xmlns          string            `xml:"xmlns,attr"`
		ResourceTagSet resourceTagSetXML `xml:"ResourceTagSet"`
	}
	listTagsForResourcesResponse struct {
		XMLName         xml.Name            `xml:"ListTagsForResourcesResponse"`
		Xmlns           string              `xml:"xmlns,attr"`
		ResourceTagSets []resourceTagSetXML `xml:"ResourceTagSets>ResourceTagSet"`
	}
	changeTagsForResourceResponse struct {
		XMLName xml.Name `xml:"ChangeTagsForResourceResponse"`
		Xmlns   string   `xml:"xmlns,attr"`
	}
)

var tagResourceTypes = []string{"healthcheck", "hostedzone"}

// checkTagResource validates the resource type and, for zones, existence.
// Health checks are not emulated, so any health check id has a tag set.
func (s *Server) checkTagResource(rtype, id string) *apiError {
	if !contains(tagResourceTypes, rtype) {
		return enumError(rtype, tagResourceTypes)
	}
	if rtype == "hostedzone" {
		if _, ok := s.st.zones[id]; !ok {
			return noSuchHostedZone(id)
		}
	}
	return nil
}

func (s *Server) tagSet(rtype, id string) resourceTagSetXML {
	m := s.st.tags[rtype+"/"+id]
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := resourceTagSetXML{ResourceType: rtype, ResourceID: id, Tags: []tagXML{}}
	for _, k := range keys {
		out.Tags = append(out.Tags, tagXML{Key: k, Value: m[k]})
	}
	return out
}

func (s *Server) listTagsForResource(req request) (int, any, *apiError) {
	if e := s.checkTagResource(req.rtype, req.id); e != nil {
		return 0, nil, e
	}
	return http.StatusOK, listTagsForResourceResponse{Xmlns: route53NS, ResourceTagSet: s.tagSet(req.rtype, req.id)}, nil
}

func (s *Server) listTagsForResources(req request) (int, any, *apiError) {
	var in listTagsForResourcesRequest
	if err := xml.Unmarshal(req.body, &in); err != nil {
		return 0, nil, invalidInput("Invalid XML ; " + err.Error())
	}
	if n := len(in.ResourceIDs); n < 1 || n > 10 {
		return 0, nil, invalidInput(fmt.Sprintf("1 validation error detected: Value '%v' at 'resourceIds' failed to satisfy constraint: Member must have length between 1 and 10", in.ResourceIDs))
	}
	resp := listTagsForResourcesResponse{Xmlns: route53NS}
	for _, raw := range in.ResourceIDs {
		id := bareID(raw)
		if e := s.checkTagResource(req.rtype, id); e != nil {
			return 0, nil, e
		}
		resp.ResourceTagSets = append(resp.ResourceTagSets, s.tagSet(req.rtype, id))
	}
	return http.StatusOK, resp, nil
}

func (s *Server) changeTagsForResource(req request) (int, any, *apiError) {
	if e := s.checkTagResource(req.rtype, req.id); e != nil {
		return 0, nil, e
	}
	var in changeTagsRequest
	if err := xml.Unmarshal(req.body, &in); err != nil {
		return 0, nil, invalidInput("Invalid XML ; " + err.Error())
	}
	var ve validationErrors
	if len(in.AddTags) > 10 {
		ve.add(fmt.Sprint(in.AddTags), "addTags", "have length less than or equal to 10")
	}
	if len(in.RemoveTagKeys) > 10 {
		ve.add(fmt.Sprint(in.RemoveTagKeys), "removeTagKeys", "have length less than or equal to 10")
	}
	for i, t := range in.AddTags {
		if len(t.Key) > 128 {
			ve.add(t.Key, fmt.Sprintf("addTags.%d.member.key", i+1), "have length less than or equal to 128")
		}
		if len(t.Value) > 256 {
			ve.add(t.Value, fmt.Sprintf("addTags.%d.member.value", i+1), "have length less than or equal to 256")
		}
	}
	if e := ve.err(); e != nil {
		return 0, nil, e
	}
	s.applyTagsLocked(req.rtype+"/"+req.id, in.AddTags, in.RemoveTagKeys)
	return http.StatusOK, changeTagsForResourceResponse{Xmlns: route53NS}, nil
}

func (s *Server) applyTagsLocked(resource string, add []tagXML, remove []string) {
	m := s.st.tags[resource]
	if m == nil {
		m = map[string]string{}
		s.st.tags[resource] = m
	}
	for _, k := range remove {
		delete(m, k)
	}
	for _, t := range add {
		m[t.Key] = t.Value
	}
}
