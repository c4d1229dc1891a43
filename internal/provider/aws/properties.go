package aws

import (
	"fmt"
	"regexp"
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
	propGeoProxRegion        = "aws/geoproximity-region"
	propGeoProxLocalZone     = "aws/geoproximity-local-zone-group"
	propGeoProxCoordinates   = "aws/geoproximity-coordinates"
	propGeoProxBias          = "aws/geoproximity-bias"
	// propHostedZoneID pins a record to one of the hosted zones its name could go into.
	propHostedZoneID = "aws/hosted-zone-id"
)

// routingProps are the routing properties Records returns and AdjustEndpoints keeps.
var routingProps = []string{propWeight, propRegion, propFailover, propContinent, propCountry, propSubdivision, propMultiValueAnswer, propHealthCheckID,
	propGeoProxRegion, propGeoProxLocalZone, propGeoProxCoordinates, propGeoProxBias}

// routing is the routing policy of a record set, read from an endpoint's properties.
type routing struct {
	weight        *int64
	region        string
	failover      string
	geo           *r53types.GeoLocation
	multiValue    bool
	healthCheckID string
	geoProximity  *r53types.GeoProximityLocation
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
	case r.geoProximity != nil:
		return "geoproximity"
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
	gp, err := geoProximityOf(e)
	if err != nil {
		return r, err
	}
	if gp != nil {
		r.geoProximity = gp
		policies = append(policies, "aws-geoproximity-*")
	}
	switch {
	case len(policies) > 1:
		return r, fmt.Errorf("routing policies %s exclude each other", strings.Join(policies, ", "))
	case len(policies) == 1 && e.SetIdentifier == "":
		return r, fmt.Errorf("%s needs a set-identifier annotation", policies[0])
	case len(policies) == 0 && e.SetIdentifier != "":
		return r, fmt.Errorf("set-identifier %q needs a routing policy annotation (aws-weight, aws-region, aws-failover, aws-geolocation-*, aws-geoproximity-*, aws-multi-value-answer)", e.SetIdentifier)
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
	rr.GeoProximityLocation = r.geoProximity
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
	if g := rr.GeoProximityLocation; g != nil {
		if g.AWSRegion != nil {
			add(propGeoProxRegion, *g.AWSRegion)
		}
		if g.LocalZoneGroup != nil {
			add(propGeoProxLocalZone, *g.LocalZoneGroup)
		}
		if c := g.Coordinates; c != nil {
			add(propGeoProxCoordinates, deref(c.Latitude)+","+deref(c.Longitude))
		}
		if g.Bias != nil {
			add(propGeoProxBias, strconv.FormatInt(int64(*g.Bias), 10))
		}
	}
	if rr.HealthCheckId != nil && *rr.HealthCheckId != "" {
		add(propHealthCheckID, *rr.HealthCheckId)
	}
	return ps
}

// Route 53's shapes for coordinates (API model 2013-04-01): at most two decimals, latitude in -90..90
// and longitude in -180..180 (the developer guide); the bias is -99..99.
var (
	latitudeRE  = regexp.MustCompile(`^[-+]?[0-9]{1,2}(\.[0-9]{0,2})?$`)
	longitudeRE = regexp.MustCompile(`^[-+]?[0-9]{1,3}(\.[0-9]{0,2})?$`)
)

// geoProximityOf reads the aws-geoproximity-* properties: exactly one location (an AWS region, a local
// zone group, or "latitude,longitude") and an optional bias, 0 when left out. nil when none is set.
func geoProximityOf(e *endpoint.Endpoint) (*r53types.GeoProximityLocation, error) {
	region, hasRegion := e.GetProviderSpecific(propGeoProxRegion)
	group, hasGroup := e.GetProviderSpecific(propGeoProxLocalZone)
	coords, hasCoords := e.GetProviderSpecific(propGeoProxCoordinates)
	bias, hasBias := e.GetProviderSpecific(propGeoProxBias)
	if !hasRegion && !hasGroup && !hasCoords {
		if hasBias {
			return nil, fmt.Errorf("aws-geoproximity-bias %q needs aws-geoproximity-region, aws-geoproximity-local-zone-group or aws-geoproximity-coordinates", bias)
		}
		return nil, nil
	}
	var set []string
	g := &r53types.GeoProximityLocation{Bias: ptr(int32(0))}
	for _, n := range []struct {
		has      bool
		v, annot string
		what     string
		field    **string
	}{
		{hasRegion, region, "aws-geoproximity-region", "an AWS region name", &g.AWSRegion},
		{hasGroup, group, "aws-geoproximity-local-zone-group", "a local zone group name", &g.LocalZoneGroup},
	} {
		if !n.has {
			continue
		}
		set = append(set, n.annot)
		v := strings.TrimSpace(n.v)
		if v == "" || len(v) > 64 {
			return nil, fmt.Errorf("%s %q is not %s (1 to 64 characters)", n.annot, n.v, n.what)
		}
		*n.field = &v
	}
	if hasCoords {
		set = append(set, "aws-geoproximity-coordinates")
		c, err := coordinatesOf(coords)
		if err != nil {
			return nil, err
		}
		g.Coordinates = c
	}
	if len(set) > 1 {
		return nil, fmt.Errorf("%s exclude each other: a geoproximity record has exactly one location", strings.Join(set, ", "))
	}
	if hasBias {
		b, err := strconv.ParseInt(strings.TrimSpace(bias), 10, 32)
		if err != nil || b < -99 || b > 99 {
			return nil, fmt.Errorf("aws-geoproximity-bias %q is not a whole number from -99 to 99", bias)
		}
		g.Bias = ptr(int32(b))
	}
	return g, nil
}

// coordinatesOf parses "latitude,longitude" in the form Route 53 accepts.
func coordinatesOf(v string) (*r53types.Coordinates, error) {
	lat, long, ok := strings.Cut(v, ",")
	lat, long = strings.TrimSpace(lat), strings.TrimSpace(long)
	bad := func(why string) error {
		return fmt.Errorf("aws-geoproximity-coordinates %q: %s (want \"latitude,longitude\" in degrees with at most two decimals, e.g. \"49.22,-74.01\")", v, why)
	}
	if !ok || strings.Contains(long, ",") {
		return nil, bad("not a latitude and a longitude separated by a comma")
	}
	if f, err := strconv.ParseFloat(lat, 64); !latitudeRE.MatchString(lat) || err != nil || f < -90 || f > 90 {
		return nil, bad("latitude " + strconv.Quote(lat) + " is not a number from -90 to 90 with at most two decimals")
	}
	if f, err := strconv.ParseFloat(long, 64); !longitudeRE.MatchString(long) || err != nil || f < -180 || f > 180 {
		return nil, bad("longitude " + strconv.Quote(long) + " is not a number from -180 to 180 with at most two decimals")
	}
	return &r53types.Coordinates{Latitude: &lat, Longitude: &long}, nil
}

func ptr[T any](v T) *T { return &v }
