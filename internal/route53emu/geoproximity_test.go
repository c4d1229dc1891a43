package route53emu_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/route53/types"

	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

func geoProx(rs *types.ResourceRecordSet, id string, g types.GeoProximityLocation) *types.ResourceRecordSet {
	rs.SetIdentifier = aws.String(id)
	rs.GeoProximityLocation = &g
	return rs
}

func coords(lat, long string) *types.Coordinates {
	return &types.Coordinates{Latitude: aws.String(lat), Longitude: aws.String(long)}
}

// GeoProximityLocation as the API model constrains it (2013-04-01: AWSRegion and LocalZoneGroup 1..64
// characters, Latitude ≤ 6 and Longitude ≤ 7 characters with their patterns, Bias -99..99), exactly one
// location, coordinates within the globe, and a DELETE that must carry the stored location.
func TestGeoProximityValidation(t *testing.T) {
	const path = "changeBatch.changes.1.member.resourceRecordSet.geoProximityLocation"
	const desc = "[Action=CREATE, Name=g.example.com, Type=A, SetIdentifier=g]"
	a := func() *types.ResourceRecordSet { return rrs("g.example.com", "A", 60, "1.2.3.4") }
	cases := []struct {
		name  string
		setup []types.Change
		batch []types.Change
		code  string
		msg   string
	}{
		{"latitude with three decimals",
			nil, []types.Change{create(geoProx(a(), "g", types.GeoProximityLocation{Coordinates: coords("1.234", "5")}))},
			"InvalidInput", "1 validation error detected: Value '1.234' at '" + path + ".coordinates.latitude' failed to satisfy constraint: Member must satisfy regular expression pattern: [-+]?[0-9]{1,2}(\\.[0-9]{0,2})?"},
		{"latitude too long and longitude not a number",
			nil, []types.Change{create(geoProx(a(), "g", types.GeoProximityLocation{Coordinates: coords("+12.345", "east")}))},
			"InvalidInput", "3 validation errors detected: Value '+12.345' at '" + path + ".coordinates.latitude' failed to satisfy constraint: Member must have length less than or equal to 6; " +
				"Value '+12.345' at '" + path + ".coordinates.latitude' failed to satisfy constraint: Member must satisfy regular expression pattern: [-+]?[0-9]{1,2}(\\.[0-9]{0,2})?; " +
				"Value 'east' at '" + path + ".coordinates.longitude' failed to satisfy constraint: Member must satisfy regular expression pattern: [-+]?[0-9]{1,3}(\\.[0-9]{0,2})?"},
		{"empty region",
			nil, []types.Change{create(geoProx(a(), "g", types.GeoProximityLocation{AWSRegion: aws.String("")}))},
			"InvalidInput", "1 validation error detected: Value '' at '" + path + ".aWSRegion' failed to satisfy constraint: Member must have length greater than or equal to 1"},
		{"local zone group too long",
			nil, []types.Change{create(geoProx(a(), "g", types.GeoProximityLocation{LocalZoneGroup: aws.String(strings.Repeat("x", 65))}))},
			"InvalidInput", "1 validation error detected: Value '" + strings.Repeat("x", 65) + "' at '" + path + ".localZoneGroup' failed to satisfy constraint: Member must have length less than or equal to 64"},
		{"bias below -99",
			nil, []types.Change{create(geoProx(a(), "g", types.GeoProximityLocation{AWSRegion: aws.String("eu-west-1"), Bias: aws.Int32(-100)}))},
			"InvalidInput", "1 validation error detected: Value '-100' at '" + path + ".bias' failed to satisfy constraint: Member must have value greater than or equal to -99"},
		{"latitude beyond the pole",
			nil, []types.Change{create(geoProx(a(), "g", types.GeoProximityLocation{Coordinates: coords("91", "0")}))},
			"InvalidInput", "Invalid request: Coordinates Latitude '91' must be from -90 to 90 in Change with " + desc},
		{"longitude beyond 180",
			nil, []types.Change{create(geoProx(a(), "g", types.GeoProximityLocation{Coordinates: coords("0", "-180.5")}))},
			"InvalidInput", "Invalid request: Coordinates Longitude '-180.5' must be from -180 to 180 in Change with " + desc},
		{"bias alone",
			nil, []types.Change{create(geoProx(a(), "g", types.GeoProximityLocation{Bias: aws.Int32(5)}))},
			"InvalidInput", "Invalid request: GeoProximityLocation must specify exactly one of AWSRegion, LocalZoneGroup or Coordinates in Change with " + desc},
		{"region and coordinates",
			nil, []types.Change{create(geoProx(a(), "g", types.GeoProximityLocation{AWSRegion: aws.String("eu-west-1"), Coordinates: coords("1", "2")}))},
			"InvalidInput", "Invalid request: GeoProximityLocation must specify exactly one of AWSRegion, LocalZoneGroup or Coordinates in Change with " + desc},
		{"delete with another location",
			[]types.Change{create(geoProx(a(), "g", types.GeoProximityLocation{AWSRegion: aws.String("eu-west-1"), Bias: aws.Int32(0)}))},
			[]types.Change{del(geoProx(a(), "g", types.GeoProximityLocation{AWSRegion: aws.String("eu-west-2"), Bias: aws.Int32(0)}))},
			"InvalidChangeBatch", "[Tried to delete resource record set [name='g.example.com.', type='A', set-identifier='g'] but the values provided do not match the current values]"},
		{"delete with another bias",
			[]types.Change{create(geoProx(a(), "g", types.GeoProximityLocation{Coordinates: coords("1", "2"), Bias: aws.Int32(3)}))},
			[]types.Change{del(geoProx(a(), "g", types.GeoProximityLocation{Coordinates: coords("1", "2"), Bias: aws.Int32(4)}))},
			"InvalidChangeBatch", "[Tried to delete resource record set [name='g.example.com.', type='A', set-identifier='g'] but the values provided do not match the current values]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := startEmu(t, route53emu.Options{})
			id := e.createZone(t, "example.com")
			if len(tc.setup) > 0 {
				e.mustChange(t, id, tc.setup...)
			}
			before := len(e.listAll(t, id))
			code, msg := apiError(t, e.change(id, tc.batch...))
			if code != tc.code || msg != tc.msg {
				t.Errorf("got  %s: %s\nwant %s: %s", code, msg, tc.code, tc.msg)
			}
			if after := len(e.listAll(t, id)); after != before {
				t.Errorf("rejected batch changed the zone: %d sets before, %d after", before, after)
			}
		})
	}
	// The matching DELETE goes through; so does one that leaves the location out.
	e := startEmu(t, route53emu.Options{})
	id := e.createZone(t, "example.com")
	g := types.GeoProximityLocation{Coordinates: coords("-33.86", "151.2"), Bias: aws.Int32(-7)}
	e.mustChange(t, id, create(geoProx(a(), "g", g)), create(geoProx(rrs("g.example.com", "A", 60, "1.2.3.5"), "h", g)))
	e.mustChange(t, id, del(geoProx(a(), "g", g)))
	e.mustChange(t, id, del(withID(rrs("g.example.com", "A", 60, "1.2.3.5"), "h")))
	if n := len(e.listAll(t, id)); n != 2 {
		t.Fatalf("%d sets left, want SOA and NS", n)
	}
}
