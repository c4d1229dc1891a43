package aws

import (
	"fmt"
	"reflect"
	"testing"

	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"
)

// variedRecordSets are record sets of every shape Route 53 lists: plain, several values, TXT, no
// TTL, an alias, each routing policy (weighted, latency, failover with a health check, geolocation,
// geoproximity, multivalue, CIDR), a traffic policy's, and names in upper case or with Route 53's
// \052 for a wildcard.
func variedRecordSets() []*r53types.ResourceRecordSet {
	rrs := func(vs ...string) []r53types.ResourceRecord {
		out := make([]r53types.ResourceRecord, len(vs))
		for i, v := range vs {
			out[i].Value = ptr(v)
		}
		return out
	}
	return []*r53types.ResourceRecordSet{
		{Name: ptr("www.example.com."), Type: r53types.RRTypeA, TTL: ptr(int64(300)), ResourceRecords: rrs("192.0.2.1", "192.0.2.2")},
		{Name: ptr("zero.example.com."), Type: r53types.RRTypeAaaa, TTL: ptr(int64(0)), ResourceRecords: rrs("2001:db8::1")},
		{Name: ptr("t.example.com."), Type: r53types.RRTypeTxt, TTL: ptr(int64(60)), ResourceRecords: rrs(`"heritage=external-dns,external-dns/owner=a"`, `"v=spf1 -all"`)},
		{Name: ptr("WWW.Example.com."), Type: r53types.RRTypeCname, TTL: ptr(int64(60)), ResourceRecords: rrs("lb.example.net")},
		{Name: ptr("\\052.example.com."), Type: r53types.RRTypeA, TTL: ptr(int64(60)), ResourceRecords: rrs("192.0.2.3")},
		{Name: ptr("no-dot.example.com"), Type: r53types.RRTypeA, TTL: ptr(int64(60)), ResourceRecords: rrs("192.0.2.4")},
		{Name: ptr("alias.example.com."), Type: r53types.RRTypeA, AliasTarget: &r53types.AliasTarget{
			DNSName: ptr("lb-1.us-east-1.elb.amazonaws.com."), HostedZoneId: ptr("Z35SXDOTRQ7X7K"), EvaluateTargetHealth: true}},
		{Name: ptr("w.example.com."), Type: r53types.RRTypeA, SetIdentifier: ptr("blue"), Weight: ptr(int64(10)), TTL: ptr(int64(60)), ResourceRecords: rrs("192.0.2.5")},
		{Name: ptr("l.example.com."), Type: r53types.RRTypeA, SetIdentifier: ptr("eu"), Region: r53types.ResourceRecordSetRegionEuWest1, TTL: ptr(int64(60)), ResourceRecords: rrs("192.0.2.6")},
		{Name: ptr("f.example.com."), Type: r53types.RRTypeA, SetIdentifier: ptr("p"), Failover: r53types.ResourceRecordSetFailoverPrimary,
			HealthCheckId: ptr("abcdef11-2222-3333-4444-555555fedcba"), TTL: ptr(int64(60)), ResourceRecords: rrs("192.0.2.7")},
		{Name: ptr("g.example.com."), Type: r53types.RRTypeA, SetIdentifier: ptr("de"), GeoLocation: &r53types.GeoLocation{CountryCode: ptr("DE")}, TTL: ptr(int64(60)), ResourceRecords: rrs("192.0.2.8")},
		{Name: ptr("gp.example.com."), Type: r53types.RRTypeA, SetIdentifier: ptr("c"), GeoProximityLocation: &r53types.GeoProximityLocation{
			Coordinates: &r53types.Coordinates{Latitude: ptr("49.22"), Longitude: ptr("-74.01")}, Bias: ptr(int32(-5))}, TTL: ptr(int64(60)), ResourceRecords: rrs("192.0.2.9")},
		{Name: ptr("m.example.com."), Type: r53types.RRTypeA, SetIdentifier: ptr("m1"), MultiValueAnswer: ptr(true), TTL: ptr(int64(60)), ResourceRecords: rrs("192.0.2.10")},
		{Name: ptr("cidr.example.com."), Type: r53types.RRTypeA, SetIdentifier: ptr("c1"), CidrRoutingConfig: &r53types.CidrRoutingConfig{
			CollectionId: ptr("c8c02a84-aaaa-bbbb-cccc-1234567890ab"), LocationName: ptr("office")}, TTL: ptr(int64(60)), ResourceRecords: rrs("192.0.2.11")},
		{Name: ptr("tp.example.com."), Type: r53types.RRTypeA, TrafficPolicyInstanceId: ptr("tp-1"), TTL: ptr(int64(60)), ResourceRecords: rrs("192.0.2.12")},
		{Name: ptr("example.com."), Type: r53types.RRTypeSoa, TTL: ptr(int64(900)), ResourceRecords: rrs("ns-1.example.net. hostmaster.example.com. 1 7200 900 1209600 86400")},
		{Name: ptr("ds.example.com."), Type: r53types.RRTypeDs, TTL: ptr(int64(60)), ResourceRecords: rrs("60485 5 1 2BB183AF5F22588179A53B0A98631FAD1A292118")},
	}
}

// TestStoredSetRebuildsTheRecordSet: the cache's compact form gives back exactly the record set it
// was made of (a DELETE sends it), under the key the SDK struct has.
func TestStoredSetRebuildsTheRecordSet(t *testing.T) {
	for _, rr := range variedRecordSets() {
		k, s := storeOf(rr)
		if k != keyOfRRSet(rr) {
			t.Errorf("%s %s: key %+v, want %+v", *rr.Name, rr.Type, k, keyOfRRSet(rr))
		}
		if got := s.recordSet(k); !reflect.DeepEqual(got, rr) {
			t.Errorf("%s %s: rebuilt as\n%#v\nwant\n%#v", *rr.Name, rr.Type, got, rr)
		}
		plain := rr.AliasTarget == nil && rr.SetIdentifier == nil && rr.TrafficPolicyInstanceId == nil && isNameAndDot(*rr.Name, k.name)
		if plain != (s.rest == nil) {
			t.Errorf("%s %s: rest %#v kept for a set whose extras are %v", *rr.Name, rr.Type, s.rest, !plain)
		}
	}
}

// TestStoredSetKeepsEveryField sets each field of the SDK's ResourceRecordSet in turn (by reflection,
// so a field a new SDK adds is included) on a plain set and requires the compact form to give it
// back: it fails when hasExtras does not name a field.
func TestStoredSetKeepsEveryField(t *testing.T) {
	typ := reflect.TypeFor[r53types.ResourceRecordSet]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		if !f.IsExported() {
			continue
		}
		rr := &r53types.ResourceRecordSet{Name: ptr("x.example.com."), Type: r53types.RRTypeA, TTL: ptr(int64(60)),
			ResourceRecords: []r53types.ResourceRecord{{Value: ptr("192.0.2.1")}}}
		v := reflect.ValueOf(rr).Elem().Field(i)
		if !v.IsZero() {
			continue // set above
		}
		switch v.Kind() {
		case reflect.Pointer:
			v.Set(reflect.New(f.Type.Elem()))
			if e := v.Elem(); e.Kind() == reflect.String {
				e.SetString("set") // Route 53 has no empty strings (a set identifier is 1 to 128 characters)
			}
		case reflect.String:
			v.SetString("set")
		case reflect.Slice:
			v.Set(reflect.MakeSlice(f.Type, 1, 1))
		case reflect.Bool:
			v.SetBool(true)
		case reflect.Int, reflect.Int32, reflect.Int64:
			v.SetInt(1)
		default:
			t.Fatalf("field %s of kind %s: the test does not know how to set it", f.Name, v.Kind())
		}
		k, s := storeOf(rr)
		if got := s.recordSet(k); !reflect.DeepEqual(got, rr) {
			t.Errorf("field %s is lost in the cache: %#v, want %#v", f.Name, got, rr)
		}
	}
}

// TestZoneContentsWithCollidingHashes runs the cache's index with every key hashing alike (so all but
// the first go through collided) and with its own hash, against a plain map: puts, replacements,
// removals, compaction, lookups and the listing order.
func TestZoneContentsWithCollidingHashes(t *testing.T) {
	for _, colliding := range []bool{false, true} {
		c := newZoneContents()
		if colliding {
			c.hash = func(rrKey) uint64 { return 7 }
		}
		want := map[rrKey]string{}
		var order []rrKey
		set := func(name, value string) *r53types.ResourceRecordSet {
			return &r53types.ResourceRecordSet{Name: ptr(name + "."), Type: r53types.RRTypeA, TTL: ptr(int64(60)),
				ResourceRecords: []r53types.ResourceRecord{{Value: ptr(value)}}}
		}
		put := func(name, value string) {
			k := rrKey{name, "A", ""}
			if _, ok := want[k]; !ok {
				order = append(order, k)
			}
			want[k] = value
			c.put(set(name, value))
		}
		remove := func(name string) {
			k := rrKey{name, "A", ""}
			delete(want, k)
			for i, o := range order {
				if o == k {
					order = append(order[:i], order[i+1:]...)
					break
				}
			}
			c.remove(k)
			c.compact()
		}
		check := func(step string) {
			t.Helper()
			if c.count() != len(want) {
				t.Fatalf("colliding=%v %s: count %d, want %d", colliding, step, c.count(), len(want))
			}
			for k, v := range want {
				s, ok := c.lookup(k)
				if !ok || s.values[0] != v {
					t.Fatalf("colliding=%v %s: %s = %v, %v; want %s", colliding, step, k.name, s.values, ok, v)
				}
			}
			if _, ok := c.lookup(rrKey{"absent.example.com", "A", ""}); ok {
				t.Fatalf("colliding=%v %s: an absent key was found", colliding, step)
			}
			var listed []rrKey
			for i := range c.entries {
				if !c.entries[i].hole() {
					listed = append(listed, c.keyOf(&c.entries[i]))
				}
			}
			if !reflect.DeepEqual(listed, order) && !(len(listed) == 0 && len(order) == 0) {
				t.Fatalf("colliding=%v %s: order %v, want %v", colliding, step, listed, order)
			}
		}
		for i := range 300 {
			put(fmt.Sprintf("h%d.example.com", i), fmt.Sprintf("192.0.2.%d", i%250))
		}
		check("filled")
		c.reindex()
		check("reindexed")
		put("h5.example.com", "198.51.100.5")
		check("replaced")
		for i := 0; i < 300; i += 3 {
			remove(fmt.Sprintf("h%d.example.com", i))
		}
		check("a third removed")
		for i := 1; i < 300; i += 3 {
			remove(fmt.Sprintf("h%d.example.com", i))
		}
		check("two thirds removed, compacted")
		put("h0.example.com", "203.0.113.1")
		check("put back")
	}
}
