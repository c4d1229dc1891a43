package route53emu

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// parsedChange is one Change after shape validation, with its set already in
// the normalised form it will be stored and listed in.
type parsedChange struct {
	index   int // 1-based, as in AWS's validation paths
	action  string
	raw     *RecordSet // as sent
	rs      RecordSet  // normalised
	key     rrKey
	nameErr error  // a name that cannot be stored; reported as a semantic error
	policy  string // routing policy member name, "" for a simple set
	values  []string
	alias   bool
}

// routingPolicies in AWS's message order.
var routingPolicies = []string{"Weight", "Region", "Failover", "GeoLocation", "MultiValueAnswer", "GeoProximityLocation", "CidrRoutingConfig"}

func presentPolicies(rs *RecordSet) []string {
	var out []string
	has := []bool{rs.Weight != nil, rs.Region != nil, rs.Failover != nil, rs.GeoLocation != nil,
		rs.MultiValueAnswer != nil, rs.GeoProximityLocation != nil, rs.CidrRoutingConfig != nil}
	for i, h := range has {
		if h {
			out = append(out, routingPolicies[i])
		}
	}
	return out
}

// changeDescription is the "[Action=…, Name=…, Type=…, SetIdentifier=…]" tail
// of AWS's InvalidInput messages; Name is shown as sent.
func changeDescription(action string, rs *RecordSet) string {
	sid := "null"
	if rs.SetIdentifier != nil {
		sid = *rs.SetIdentifier
	}
	return fmt.Sprintf("[Action=%s, Name=%s, Type=%s, SetIdentifier=%s]", action, rs.Name, rs.Type, sid)
}

// validationErrors collects AWS's model-constraint failures, reported together
// as "N validation error(s) detected: …; …".
type validationErrors []string

func (v *validationErrors) add(value, path, constraint string) {
	*v = append(*v, fmt.Sprintf("Value '%s' at '%s' failed to satisfy constraint: Member must %s", value, path, constraint))
}

func (v validationErrors) err() *apiError {
	if len(v) == 0 {
		return nil
	}
	noun := "error"
	if len(v) > 1 {
		noun = "errors"
	}
	return invalidInput(fmt.Sprintf("%d validation %s detected: %s", len(v), noun, strings.Join(v, "; ")))
}

func parseInteger(n *Number) (int64, *apiError) {
	v, err := strconv.ParseInt(strings.TrimSpace(string(*n)), 10, 64)
	if err != nil {
		return 0, invalidInput("Invalid XML ; cvc-datatype-valid.1.2.1: '" + string(*n) + "' is not a valid value for 'integer'.")
	}
	return v, nil
}

func parseBool(b Bool) (bool, *apiError) {
	v, ok := b.value()
	if !ok {
		return false, invalidInput("Invalid XML ; cvc-datatype-valid.1.2.1: '" + string(b) + "' is not a valid value for 'boolean'.")
	}
	return v, nil
}

// parseChanges runs the shape checks in AWS's order: XML schema (enums, data
// types) over the whole document, then model constraints (collected), then
// the structural rules of each change. The first failing stage yields one
// InvalidInput; nothing is applied.
func parseChanges(in *changeBatchRequest) ([]parsedChange, *apiError) {
	if in.ChangeBatch == nil {
		return nil, invalidInput("1 validation error detected: Value null at 'changeBatch' failed to satisfy constraint: Member must not be null")
	}
	if in.ChangeBatch.Changes == nil || len(in.ChangeBatch.Changes.Items) == 0 {
		return nil, invalidInput("1 validation error detected: Value '[]' at 'changeBatch.changes' failed to satisfy constraint: Member must have length greater than or equal to 1")
	}
	items := in.ChangeBatch.Changes.Items
	out := make([]parsedChange, len(items))
	// Stage 1: schema.
	for i := range items {
		c := &items[i]
		if !contains(actionList, c.Action) {
			return nil, enumError(c.Action, actionList)
		}
		if c.ResourceRecordSet == nil {
			return nil, invalidInput(fmt.Sprintf("1 validation error detected: Value null at 'changeBatch.changes.%d.member.resourceRecordSet' failed to satisfy constraint: Member must not be null", i+1))
		}
		if e := schemaCheck(c.ResourceRecordSet); e != nil {
			return nil, e
		}
	}
	// Stage 2: model constraints.
	var ve validationErrors
	if cm := in.ChangeBatch.Comment; cm != nil && len(*cm) > 256 {
		ve.add(*cm, "changeBatch.comment", "have length less than or equal to 256")
	}
	for i := range items {
		constraintCheck(&ve, i+1, items[i].ResourceRecordSet)
	}
	if e := ve.err(); e != nil {
		return nil, e
	}
	// Stage 3: structure.
	for i := range items {
		c := &items[i]
		p, e := structureCheck(i+1, c.Action, c.ResourceRecordSet)
		if e != nil {
			return nil, e
		}
		out[i] = p
	}
	return out, nil
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func schemaCheck(rs *RecordSet) *apiError {
	if !rrTypes[rs.Type] {
		return enumError(rs.Type, rrTypeList)
	}
	for _, n := range []*Number{rs.TTL, rs.Weight} {
		if n != nil {
			if _, e := parseInteger(n); e != nil {
				return e
			}
		}
	}
	if rs.Region != nil && !regions[*rs.Region] {
		return enumError(*rs.Region, regionList)
	}
	if rs.Failover != nil && !contains(failoverList, *rs.Failover) {
		return enumError(*rs.Failover, failoverList)
	}
	if rs.MultiValueAnswer != nil {
		if _, e := parseBool(*rs.MultiValueAnswer); e != nil {
			return e
		}
	}
	if a := rs.AliasTarget; a != nil {
		if _, e := parseBool(a.EvaluateTargetHealth); e != nil {
			return e
		}
	}
	if g := rs.GeoProximityLocation; g != nil && g.Bias != nil {
		if _, e := parseInteger(g.Bias); e != nil {
			return e
		}
	}
	return nil
}

func constraintCheck(ve *validationErrors, idx int, rs *RecordSet) {
	base := fmt.Sprintf("changeBatch.changes.%d.member.resourceRecordSet", idx)
	if len(rs.Name) > 1024 {
		ve.add(rs.Name, base+".name", "have length less than or equal to 1024")
	}
	if rs.TTL != nil {
		v, _ := parseInteger(rs.TTL)
		if v < 0 {
			ve.add(string(*rs.TTL), base+".tTL", "have value greater than or equal to 0")
		} else if v > 2147483647 {
			ve.add(string(*rs.TTL), base+".tTL", "have value less than or equal to 2147483647")
		}
	}
	if rs.Weight != nil {
		v, _ := parseInteger(rs.Weight)
		if v < 0 {
			ve.add(string(*rs.Weight), base+".weight", "have value greater than or equal to 0")
		} else if v > 255 {
			ve.add(string(*rs.Weight), base+".weight", "have value less than or equal to 255")
		}
	}
	if rs.SetIdentifier != nil {
		if n := len(*rs.SetIdentifier); n < 1 {
			ve.add(*rs.SetIdentifier, base+".setIdentifier", "have length greater than or equal to 1")
		} else if n > 128 {
			ve.add(*rs.SetIdentifier, base+".setIdentifier", "have length less than or equal to 128")
		}
	}
	if rs.HealthCheckID != nil && len(*rs.HealthCheckID) > 64 {
		ve.add(*rs.HealthCheckID, base+".healthCheckId", "have length less than or equal to 64")
	}
	if rr := rs.ResourceRecords; rr != nil {
		if len(rr.Items) < 1 {
			ve.add("[]", base+".resourceRecords", "have length greater than or equal to 1")
		}
		for j, it := range rr.Items {
			if len(it.Value) > 4000 {
				ve.add(it.Value, fmt.Sprintf("%s.resourceRecords.%d.member.value", base, j+1), "have length less than or equal to 4000")
			}
		}
	}
	if a := rs.AliasTarget; a != nil && len(a.DNSName) > 1024 {
		ve.add(a.DNSName, base+".aliasTarget.dNSName", "have length less than or equal to 1024")
	}
	if g := rs.GeoLocation; g != nil {
		if c := g.ContinentCode; c != nil && len(*c) != 2 {
			ve.add(*c, base+".geoLocation.continentCode", "have length between 2 and 2")
		}
		if c := g.CountryCode; c != nil && (len(*c) < 1 || len(*c) > 2) {
			ve.add(*c, base+".geoLocation.countryCode", "have length between 1 and 2")
		}
		if c := g.SubdivisionCode; c != nil && (len(*c) < 1 || len(*c) > 3) {
			ve.add(*c, base+".geoLocation.subdivisionCode", "have length between 1 and 3")
		}
	}
	if g := rs.GeoProximityLocation; g != nil {
		gp := base + ".geoProximityLocation"
		for _, m := range []struct {
			v    *string
			path string
		}{{g.AWSRegion, gp + ".aWSRegion"}, {g.LocalZoneGroup, gp + ".localZoneGroup"}} {
			if m.v == nil {
				continue
			}
			if len(*m.v) < 1 {
				ve.add(*m.v, m.path, "have length greater than or equal to 1")
			} else if len(*m.v) > 64 {
				ve.add(*m.v, m.path, "have length less than or equal to 64")
			}
		}
		if c := g.Coordinates; c != nil {
			coordinateCheck(ve, c.Latitude, gp+".coordinates.latitude", 6, latitudePattern)
			coordinateCheck(ve, c.Longitude, gp+".coordinates.longitude", 7, longitudePattern)
		}
		if g.Bias != nil {
			v, _ := parseInteger(g.Bias)
			if v < -99 {
				ve.add(string(*g.Bias), gp+".bias", "have value greater than or equal to -99")
			} else if v > 99 {
				ve.add(string(*g.Bias), gp+".bias", "have value less than or equal to 99")
			}
		}
	}
}

// The model's Latitude and Longitude shapes: strings of at most 6 and 7 characters matching these.
const (
	latitudePattern  = `[-+]?[0-9]{1,2}(\.[0-9]{0,2})?`
	longitudePattern = `[-+]?[0-9]{1,3}(\.[0-9]{0,2})?`
)

var (
	latitudeRE  = regexp.MustCompile("^(?:" + latitudePattern + ")$")
	longitudeRE = regexp.MustCompile("^(?:" + longitudePattern + ")$")
)

func coordinateCheck(ve *validationErrors, v, path string, maxLen int, pattern string) {
	if len(v) < 1 {
		ve.add(v, path, "have length greater than or equal to 1")
	} else if len(v) > maxLen {
		ve.add(v, path, fmt.Sprintf("have length less than or equal to %d", maxLen))
	}
	re := latitudeRE
	if pattern == longitudePattern {
		re = longitudeRE
	}
	if !re.MatchString(v) {
		ve.add(v, path, "satisfy regular expression pattern: "+pattern)
	}
}

// structureCheck enforces "exactly one of" rules and builds the normalised set.
func structureCheck(idx int, action string, rs *RecordSet) (parsedChange, *apiError) {
	desc := changeDescription(action, rs)
	hasRR := rs.TTL != nil && rs.ResourceRecords != nil
	partialRR := (rs.TTL != nil) != (rs.ResourceRecords != nil)
	found := 0
	for _, b := range []bool{rs.AliasTarget != nil, hasRR || (partialRR && rs.AliasTarget != nil), rs.TrafficPolicyInstanceID != nil} {
		if b {
			found++
		}
	}
	const oneOfData = "Invalid request: Expected exactly one of [AliasTarget, all of [TTL, and ResourceRecords], or TrafficPolicyInstanceId], but found "
	switch {
	case found == 0:
		return parsedChange{}, invalidInput(oneOfData + "none in Change with " + desc)
	case found > 1:
		return parsedChange{}, invalidInput(oneOfData + "more than one in Change with " + desc)
	case rs.TrafficPolicyInstanceID != nil:
		return parsedChange{}, invalidInput("Invalid request: record sets managed by a traffic policy instance cannot be changed with ChangeResourceRecordSets (the emulator does not model traffic policies) in Change with " + desc)
	}
	policies := presentPolicies(rs)
	const oneOfPolicy = "Invalid request: Expected exactly one of [Weight, Region, Failover, GeoLocation, MultiValueAnswer, GeoProximityLocation, or CidrRoutingConfig], but found "
	switch {
	case len(policies) > 1:
		return parsedChange{}, invalidInput(oneOfPolicy + "more than one in Change with " + desc)
	case len(policies) == 1 && rs.SetIdentifier == nil:
		return parsedChange{}, invalidInput("Invalid request: Missing field 'SetIdentifier' in Change with " + desc)
	case len(policies) == 0 && rs.SetIdentifier != nil && action != "DELETE":
		// A DELETE may leave the routing field out (AWS tolerates an omitted
		// MultiValueAnswer); it is matched by name, type and SetIdentifier.
		return parsedChange{}, invalidInput(oneOfPolicy + "none in Change with " + desc)
	}
	if g := rs.GeoLocation; g != nil {
		switch {
		case g.ContinentCode != nil && g.CountryCode != nil:
			return parsedChange{}, invalidInput("Invalid request: GeoLocation must specify either ContinentCode or CountryCode, not both, in Change with " + desc)
		case g.ContinentCode == nil && g.CountryCode == nil:
			return parsedChange{}, invalidInput("Invalid request: GeoLocation must specify ContinentCode or CountryCode in Change with " + desc)
		case g.SubdivisionCode != nil && g.CountryCode == nil:
			return parsedChange{}, invalidInput("Invalid request: GeoLocation SubdivisionCode requires CountryCode in Change with " + desc)
		case g.ContinentCode != nil && !continents[*g.ContinentCode]:
			return parsedChange{}, invalidInput("Invalid request: GeoLocation ContinentCode '" + *g.ContinentCode + "' is not one of [AF, AN, AS, EU, OC, NA, SA] in Change with " + desc)
		}
	}
	if g := rs.GeoProximityLocation; g != nil {
		n := 0
		for _, b := range []bool{g.AWSRegion != nil, g.LocalZoneGroup != nil, g.Coordinates != nil} {
			if b {
				n++
			}
		}
		if n != 1 {
			return parsedChange{}, invalidInput("Invalid request: GeoProximityLocation must specify exactly one of AWSRegion, LocalZoneGroup or Coordinates in Change with " + desc)
		}
		if c := g.Coordinates; c != nil {
			// The model's patterns allow 99.99 and 999.99; the developer guide bounds them.
			if f, _ := strconv.ParseFloat(c.Latitude, 64); f < -90 || f > 90 {
				return parsedChange{}, invalidInput("Invalid request: Coordinates Latitude '" + c.Latitude + "' must be from -90 to 90 in Change with " + desc)
			}
			if f, _ := strconv.ParseFloat(c.Longitude, 64); f < -180 || f > 180 {
				return parsedChange{}, invalidInput("Invalid request: Coordinates Longitude '" + c.Longitude + "' must be from -180 to 180 in Change with " + desc)
			}
		}
	}
	p := parsedChange{index: idx, action: action, raw: rs, alias: rs.AliasTarget != nil}
	if len(policies) == 1 {
		p.policy = policies[0]
	}
	p.rs = normalizedCopy(rs)
	if n, err := normalizeName(rs.Name); err != nil {
		p.nameErr = err
	} else {
		p.rs.Name = n
	}
	p.key = keyOf(&p.rs)
	if rs.ResourceRecords != nil {
		for _, it := range rs.ResourceRecords.Items {
			p.values = append(p.values, it.Value)
		}
	}
	return p, nil
}

// normalizedCopy is the set as Route 53 would list it: numbers and booleans
// canonical, alias target lower-cased, escaped, dot-terminated with a bare
// zone id. Values are kept exactly as submitted.
func normalizedCopy(rs *RecordSet) RecordSet {
	out := *rs
	canonNum := func(n *Number) *Number {
		if n == nil {
			return nil
		}
		v, _ := parseInteger(n)
		return NumberOf(v)
	}
	out.TTL = canonNum(rs.TTL)
	out.Weight = canonNum(rs.Weight)
	if rs.MultiValueAnswer != nil {
		v, _ := rs.MultiValueAnswer.value()
		b := BoolOf(v)
		out.MultiValueAnswer = &b
	}
	if rs.ResourceRecords != nil {
		out.ResourceRecords = &ResourceRecords{Items: append([]ResourceRecord(nil), rs.ResourceRecords.Items...)}
	}
	if a := rs.AliasTarget; a != nil {
		eth, _ := a.EvaluateTargetHealth.value()
		out.AliasTarget = &AliasTarget{HostedZoneID: bareID(a.HostedZoneID), DNSName: mustNormalize(a.DNSName), EvaluateTargetHealth: BoolOf(eth)}
	}
	if g := rs.GeoProximityLocation; g != nil {
		c := *g
		c.Bias = canonNum(g.Bias)
		out.GeoProximityLocation = &c
	}
	return out
}
