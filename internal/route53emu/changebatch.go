package route53emu

import (
	"encoding/xml"
	"fmt"
	"net/http"
	"strings"
)

type changeResourceRecordSetsResponse struct {
	XMLName    xml.Name      `xml:"ChangeResourceRecordSetsResponse"`
	Xmlns      string        `xml:"xmlns,attr"`
	ChangeInfo changeInfoXML `xml:"ChangeInfo"`
}

// Request-wide limits (reference §2.4); UPSERT counts double for both.
const (
	maxRecordsPerRequest = 1000
	maxCharsPerRequest   = 32000
	maxValuesPerSet      = 400
)

func (s *Server) changeResourceRecordSets(req request) (int, any, *apiError) {
	z, ok := s.st.zones[req.zoneID]
	if !ok {
		return 0, nil, noSuchHostedZone(req.zoneID)
	}
	var in changeBatchRequest
	if err := xml.Unmarshal(req.body, &in); err != nil {
		return 0, nil, invalidInput("Invalid XML ; " + err.Error())
	}
	changes, e := parseChanges(&in)
	if e != nil {
		return 0, nil, e
	}
	if e := checkRequestLimits(changes); e != nil {
		return 0, nil, e
	}
	wc := newWorkingCopy(z)
	if msgs := s.applyChanges(wc, changes); len(msgs) > 0 {
		return 0, nil, invalidChangeBatch(msgs)
	}
	wc.commit()
	comment := ""
	if in.ChangeBatch.Comment != nil {
		comment = *in.ChangeBatch.Comment
	}
	c := s.newChangeLocked(z.id, comment)
	return http.StatusOK, changeResourceRecordSetsResponse{Xmlns: route53NS, ChangeInfo: c.info(s.now())}, nil
}

func checkRequestLimits(changes []parsedChange) *apiError {
	records, chars := 0, 0
	for i := range changes {
		c := &changes[i]
		weight := 1
		if c.action == "UPSERT" {
			weight = 2
		}
		if c.alias {
			records += weight
		} else {
			records += weight * len(c.values)
		}
		for _, v := range c.values {
			chars += weight * len(v)
		}
	}
	var msgs []string
	if records > maxRecordsPerRequest {
		msgs = append(msgs, fmt.Sprintf("Number of records limit of %d exceeded.", maxRecordsPerRequest))
	}
	if chars > maxCharsPerRequest {
		msgs = append(msgs, fmt.Sprintf("Number of characters limit of %d exceeded.", maxCharsPerRequest))
	}
	if msgs != nil {
		return invalidChangeBatch(msgs)
	}
	return nil
}

// setLabel is "[name='x.', type='A'(, set-identifier='id')]" as in AWS's
// create/delete messages.
func setLabel(k rrKey) string {
	l := "[name='" + k.Name + "', type='" + k.Type + "'"
	if k.SetID != "" {
		l += ", set-identifier='" + k.SetID + "'"
	}
	return l + "]"
}

// applyChanges runs every change in order against the working copy and
// returns every failure; the caller commits only when there are none.
func (s *Server) applyChanges(wc *workingCopy, changes []parsedChange) []string {
	var msgs []string
	seen := map[rrKey][]string{}
	for i := range changes {
		c := &changes[i]
		if c.nameErr != nil {
			ne := c.nameErr.(*nameError)
			msgs = append(msgs, "FATAL problem: "+ne.Reason+" ("+ne.Text+") encountered with '"+c.raw.Name+"'")
			continue
		}
		k := c.key
		if !inZone(k.Name, wc.z.name) {
			msgs = append(msgs, "RRSet with DNS name "+k.Name+" is not permitted in zone "+wc.z.name)
			continue
		}
		prev := seen[k]
		seen[k] = append(prev, c.action)
		if len(prev) > 0 && !(len(prev) == 1 && prev[0] == "DELETE" && c.action != "DELETE") {
			msgs = append(msgs, "The request contains an invalid set of changes for a resource record set '"+k.Type+" "+k.Name+"'")
			continue
		}
		existing := wc.get(k)
		switch c.action {
		case "DELETE":
			if k.Name == wc.z.name && k.Type == "SOA" && k.SetID == "" && existing != nil && deleteMatches(c, existing) {
				msgs = append(msgs, "A HostedZone must contain exactly one SOA record.")
				continue
			}
			switch {
			case existing == nil:
				msgs = append(msgs, "Tried to delete resource record set "+setLabel(k)+" but it was not found")
			case !deleteMatches(c, existing):
				msgs = append(msgs, "Tried to delete resource record set "+setLabel(k)+" but the values provided do not match the current values")
			default:
				wc.del(k)
			}
		case "CREATE", "UPSERT":
			if c.action == "CREATE" && existing != nil {
				msgs = append(msgs, "Tried to create resource record set "+setLabel(k)+" but it already exists")
				continue
			}
			if m := s.checkSet(c, wc); len(m) > 0 {
				msgs = append(msgs, m...)
				continue
			}
			wc.put(c.rs)
		}
	}
	if len(msgs) == 0 {
		apex := wc.names(wc.z.name)
		if apex[rrKey{Name: wc.z.name, Type: "NS"}] == nil {
			msgs = append(msgs, "A HostedZone must contain at least one NS record for the zone itself.")
		}
		if apex[rrKey{Name: wc.z.name, Type: "SOA"}] == nil {
			msgs = append(msgs, "A HostedZone must contain exactly one SOA record.")
		}
	}
	return msgs
}

// checkSet applies the rules a CREATE or UPSERT set must satisfy against the
// sets already at its name.
func (s *Server) checkSet(c *parsedChange, wc *workingCopy) []string {
	k := c.key
	zoneName := wc.z.name
	var msgs []string

	// Values.
	if !c.alias {
		seenValues := map[string]bool{}
		for _, v := range c.values {
			if m := checkValue(k.Type, v); m != "" {
				msgs = append(msgs, m)
				continue
			}
			vk := valueKey(k.Type, v)
			if seenValues[vk] {
				msgs = append(msgs, "Duplicate Resource Record: '"+v+"'")
			}
			seenValues[vk] = true
		}
		if len(c.values) > maxValuesPerSet {
			msgs = append(msgs, fmt.Sprintf("RRSet with DNS name %s, type %s has %d values, more than the limit of %d", k.Name, k.Type, len(c.values), maxValuesPerSet))
		}
		if (k.Type == "CNAME" || k.Type == "SOA") && len(c.values) > 1 {
			msgs = append(msgs, "RRSet of type "+k.Type+" with DNS name "+k.Name+" must have exactly one value")
		}
	} else {
		msgs = append(msgs, s.checkAlias(c, wc)...)
	}

	// Placement rules by type.
	switch {
	case k.Type == "CNAME" && k.Name == zoneName:
		// The apex always holds SOA and NS; AWS reports only the apex rule.
		return append(msgs, "RRSet of type CNAME with DNS name "+k.Name+" is not permitted at apex in zone "+zoneName)
	case k.Type == "SOA" && k.Name != zoneName:
		msgs = append(msgs, "RRSet of type SOA with DNS name "+k.Name+" is not permitted because SOA records are only allowed at the apex of zone "+zoneName)
	case k.Type == "NS" && isWildcard(k.Name):
		msgs = append(msgs, "RRSet of type NS with DNS name "+k.Name+" is not permitted because NS records cannot be wildcards")
	}
	if c.policy != "" {
		if k.Type == "NS" || k.Type == "SOA" || (k.Type == "DS" && c.policy != "MultiValueAnswer" && c.policy != "GeoProximityLocation" && c.policy != "CidrRoutingConfig") {
			msgs = append(msgs, "RRSet with DNS name "+k.Name+", type "+k.Type+", SetIdentifier "+k.SetID+" cannot use a routing policy: "+k.Type+" sets must be simple")
		}
	}

	// CNAME exclusivity and routing-policy consistency with the other sets
	// at this name.
	cnameConflict, otherConflict := false, false
	sameType := 0
	for ok, other := range wc.names(k.Name) {
		if ok == k {
			continue
		}
		if ok.Type != k.Type {
			if k.Type == "CNAME" {
				cnameConflict = true
			} else if ok.Type == "CNAME" {
				otherConflict = true
			}
			continue
		}
		sameType++
		if m := policyConflict(c, other); m != "" {
			msgs = append(msgs, m)
			return msgs
		}
	}
	if cnameConflict {
		msgs = append(msgs, "RRSet of type CNAME with DNS name "+k.Name+" is not permitted as it conflicts with other records with the same DNS name in zone "+zoneName)
	}
	if otherConflict {
		msgs = append(msgs, "RRSet of type "+k.Type+" with DNS name "+k.Name+" is not permitted because a conflicting RRSet of type  CNAME with the same DNS name already exists in zone "+zoneName)
	}
	limit := 100
	if c.policy == "GeoProximityLocation" {
		limit = 30
	}
	if c.policy != "" && sameType+1 > limit {
		msgs = append(msgs, fmt.Sprintf("RRSet with DNS name %s, type %s cannot be created because the limit of %d sets with the same name and type has been reached", k.Name, k.Type, limit))
	}
	return msgs
}

// policyConflict checks a new set against a sibling of the same name and type.
func policyConflict(c *parsedChange, other *storedSet) string {
	k := c.key
	otherPolicy := ""
	if ps := presentPolicies(&other.set); len(ps) == 1 {
		otherPolicy = ps[0]
	}
	switch {
	case c.policy == "":
		return "RRSet with DNS name " + k.Name + ", type " + k.Type + " cannot be created as other RRSets exist with the same name and type."
	case otherPolicy == "":
		return "RRSet with DNS name " + k.Name + ", type " + k.Type + ", SetIdentifier " + k.SetID + " cannot be created as a non-weighted set exists with the same name and type."
	case otherPolicy != c.policy:
		return "RRSet with DNS name " + k.Name + ", type " + k.Type + ", SetIdentifier " + k.SetID + " cannot be created as other RRSets exist with the same name and type."
	}
	o := &other.set
	dup := func(what string) string {
		return "RRSet with DNS name " + k.Name + ", type " + k.Type + ", SetIdentifier " + k.SetID +
			" cannot be created because the RRSet with SetIdentifier " + other.key.SetID + " already uses " + what
	}
	switch c.policy {
	case "Failover":
		if *o.Failover == *c.rs.Failover {
			return dup("Failover " + *o.Failover)
		}
	case "Region":
		if *o.Region == *c.rs.Region {
			return dup("Region " + *o.Region)
		}
	case "GeoLocation":
		if geoString(o.GeoLocation) == geoString(c.rs.GeoLocation) {
			return dup("GeoLocation " + geoString(o.GeoLocation))
		}
	}
	return ""
}

func geoString(g *GeoLocation) string {
	part := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	return strings.Join([]string{part(g.ContinentCode), part(g.CountryCode), part(g.SubdivisionCode)}, "/")
}

// deleteMatches compares a DELETE with the stored set: TTL and the value
// multiset (domain names without case or trailing dot), or the alias target;
// routing fields only when the request carries them.
func deleteMatches(c *parsedChange, stored *storedSet) bool {
	want, have := &c.rs, &stored.set
	if (want.AliasTarget != nil) != (have.AliasTarget != nil) {
		return false
	}
	if want.AliasTarget != nil {
		a, b := want.AliasTarget, have.AliasTarget
		if !strings.EqualFold(a.HostedZoneID, b.HostedZoneID) || a.DNSName != b.DNSName || a.EvaluateTargetHealth != b.EvaluateTargetHealth {
			return false
		}
	} else {
		if want.TTL == nil || have.TTL == nil || *want.TTL != *have.TTL {
			return false
		}
		if !sameValues(c.key.Type, want.ResourceRecords, have.ResourceRecords) {
			return false
		}
	}
	eqStr := func(a, b *string) bool { return a == nil || (b != nil && *a == *b) }
	if !eqStr(want.Region, have.Region) || !eqStr(want.Failover, have.Failover) || !eqStr(want.HealthCheckID, have.HealthCheckID) {
		return false
	}
	if want.Weight != nil && (have.Weight == nil || *want.Weight != *have.Weight) {
		return false
	}
	if want.MultiValueAnswer != nil && (have.MultiValueAnswer == nil || *want.MultiValueAnswer != *have.MultiValueAnswer) {
		return false
	}
	if want.GeoLocation != nil && (have.GeoLocation == nil || geoString(want.GeoLocation) != geoString(have.GeoLocation)) {
		return false
	}
	if want.GeoProximityLocation != nil && (have.GeoProximityLocation == nil || geoProximityString(want.GeoProximityLocation) != geoProximityString(have.GeoProximityLocation)) {
		return false
	}
	return true
}

// geoProximityString is a stored location in comparable form; an absent bias is 0.
func geoProximityString(g *GeoProximityLocation) string {
	part := func(p *string) string {
		if p == nil {
			return "-"
		}
		return *p
	}
	coords := "-"
	if c := g.Coordinates; c != nil {
		coords = c.Latitude + "," + c.Longitude
	}
	bias := int64(0)
	if g.Bias != nil {
		bias, _ = parseInteger(g.Bias)
	}
	return fmt.Sprintf("%s/%s/%s/%d", part(g.AWSRegion), part(g.LocalZoneGroup), coords, bias)
}

func sameValues(t string, a, b *ResourceRecords) bool {
	if a == nil || b == nil || len(a.Items) != len(b.Items) {
		return false
	}
	count := map[string]int{}
	for _, it := range a.Items {
		count[valueKey(t, it.Value)]++
	}
	for _, it := range b.Items {
		vk := valueKey(t, it.Value)
		if count[vk] == 0 {
			return false
		}
		count[vk]--
	}
	return true
}
