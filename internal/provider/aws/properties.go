package aws

import (
	"fmt"
	"strconv"
	"strings"

	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// Provider-specific properties, named as external-dns names them. Sources copy every
// aws-<x> annotation to aws/<x>.
const (
	propAlias                = "alias"
	propEvaluateTargetHealth = "aws/evaluate-target-health"
	propTargetHostedZone     = "aws/target-hosted-zone"
	propWeight               = "aws/weight"
	propRegion               = "aws/region"
	propFailover             = "aws/failover"
	propContinent            = "aws/geolocation-continent-code"
	propCountry              = "aws/geolocation-country-code"
	propSubdivision          = "aws/geolocation-subdivision-code"
	propMultiValueAnswer     = "aws/multi-value-answer"
	propHealthCheckID        = "aws/health-check-id"
)

// routingProps are the routing properties Records returns and AdjustEndpoints keeps.
var routingProps = []string{propWeight, propRegion, propFailover, propContinent, propCountry, propSubdivision, propMultiValueAnswer, propHealthCheckID}

// routing is the routing policy of a record set, read from an endpoint's properties.
type routing struct {
	weight        *int64
	region        string
	failover      string
	geo           *r53types.GeoLocation
	multiValue    bool
	healthCheckID string
}

// kind names the policy, to tell a policy change (sent as DELETE + CREATE) from a value change.
func (r routing) kind() string {
	switch {
	case r.weight != nil:
		return "weight"
	case r.region != "":
		return "region"
	case r.failover != "":
		return "failover"
	case r.geo != nil:
		return "geolocation"
	case r.multiValue:
		return "multivalue"
	}
	return ""
}

// routingOf reads and checks the routing properties of e. Errors name the property and the value.
func routingOf(e *endpoint.Endpoint) (routing, error) {
	var r routing
	var policies []string
	if v, ok := e.GetProviderSpecific(propWeight); ok {
		w, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || w < 0 || w > 255 {
			return r, fmt.Errorf("aws-weight %q is not a whole number from 0 to 255", v)
		}
		r.weight = &w
		policies = append(policies, "aws-weight")
	}
	if v, ok := e.GetProviderSpecific(propRegion); ok {
		r.region = strings.TrimSpace(v)
		policies = append(policies, "aws-region")
	}
	if v, ok := e.GetProviderSpecific(propFailover); ok {
		r.failover = strings.ToUpper(strings.TrimSpace(v))
		if r.failover != "PRIMARY" && r.failover != "SECONDARY" {
			return r, fmt.Errorf("aws-failover %q is neither PRIMARY nor SECONDARY", v)
		}
		policies = append(policies, "aws-failover")
	}
	continent, hasContinent := e.GetProviderSpecific(propContinent)
	country, hasCountry := e.GetProviderSpecific(propCountry)
	subdivision, hasSubdivision := e.GetProviderSpecific(propSubdivision)
	if hasContinent || hasCountry || hasSubdivision {
		switch {
		case hasContinent && (hasCountry || hasSubdivision):
			return r, fmt.Errorf("aws-geolocation-continent-code %q excludes a country and a subdivision code", continent)
		case hasSubdivision && !hasCountry:
			return r, fmt.Errorf("aws-geolocation-subdivision-code %q needs aws-geolocation-country-code", subdivision)
		}
		r.geo = &r53types.GeoLocation{}
		if hasContinent {
			r.geo.ContinentCode = &continent
		}
		if hasCountry {
			r.geo.CountryCode = &country
		}
		if hasSubdivision {
			r.geo.SubdivisionCode = &subdivision
		}
		policies = append(policies, "aws-geolocation-*")
	}
	if _, ok := e.GetProviderSpecific(propMultiValueAnswer); ok {
		r.multiValue = true
		policies = append(policies, "aws-multi-value-answer")
	}
	if v, ok := e.GetProviderSpecific(propHealthCheckID); ok {
		r.healthCheckID = strings.TrimSpace(v)
	}
	switch {
	case len(policies) > 1:
		return r, fmt.Errorf("routing policies %s exclude each other", strings.Join(policies, ", "))
	case len(policies) == 1 && e.SetIdentifier == "":
		return r, fmt.Errorf("%s needs a set-identifier annotation", policies[0])
	case len(policies) == 0 && e.SetIdentifier != "":
		return r, fmt.Errorf("set-identifier %q needs a routing policy annotation (aws-weight, aws-region, aws-failover, aws-geolocation-*, aws-multi-value-answer)", e.SetIdentifier)
	}
	return r, nil
}

// apply writes the policy into a record set.
func (r routing) apply(rr *r53types.ResourceRecordSet) {
	rr.Weight = r.weight
	if r.region != "" {
		rr.Region = r53types.ResourceRecordSetRegion(r.region)
	}
	if r.failover != "" {
		rr.Failover = r53types.ResourceRecordSetFailover(r.failover)
	}
	rr.GeoLocation = r.geo
	if r.multiValue {
		rr.MultiValueAnswer = ptr(true)
	}
	if r.healthCheckID != "" {
		rr.HealthCheckId = &r.healthCheckID
	}
}

// routingProperties are the properties Records gives a record set, in a fixed order.
func routingProperties(rr *r53types.ResourceRecordSet) endpoint.ProviderSpecific {
	var ps endpoint.ProviderSpecific
	add := func(name, value string) {
		ps = append(ps, endpoint.ProviderSpecificProperty{Name: name, Value: value})
	}
	if rr.Weight != nil {
		add(propWeight, strconv.FormatInt(*rr.Weight, 10))
	}
	if rr.Region != "" {
		add(propRegion, string(rr.Region))
	}
	if rr.Failover != "" {
		add(propFailover, string(rr.Failover))
	}
	if g := rr.GeoLocation; g != nil {
		if g.ContinentCode != nil {
			add(propContinent, *g.ContinentCode)
		}
		if g.CountryCode != nil {
			add(propCountry, *g.CountryCode)
		}
		if g.SubdivisionCode != nil {
			add(propSubdivision, *g.SubdivisionCode)
		}
	}
	if rr.MultiValueAnswer != nil && *rr.MultiValueAnswer {
		add(propMultiValueAnswer, "")
	}
	if rr.HealthCheckId != nil && *rr.HealthCheckId != "" {
		add(propHealthCheckID, *rr.HealthCheckId)
	}
	return ps
}

func ptr[T any](v T) *T { return &v }
