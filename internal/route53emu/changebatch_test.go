package route53emu_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	"github.com/aws/aws-sdk-go-v2/service/route53/types"

	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

// validationCase: setup is applied first (must succeed), then batch must fail
// with code and the exact message.
type validationCase struct {
	name   string
	setup  []types.Change
	batch  []types.Change
	code   string
	msg    string
	status int // 0: 400
}

func manyValues(n int, width int) []string {
	out := make([]string, n)
	for i := range out {
		v := fmt.Sprintf("%d.%d.%d.%d", 10, i/65536, (i/256)%256, i%256)
		if width > 0 {
			v = `"` + strings.Repeat("x", width-2-len(fmt.Sprint(i))) + fmt.Sprint(i) + `"`
		}
		out[i] = v
	}
	return out
}

func TestChangeBatchValidationMessages(t *testing.T) {
	const elbZone = "Z35SXDOTRQ7X7K" // us-east-1 ALB
	cases := []validationCase{
		{name: "create existing",
			setup: []types.Change{create(rrs("www.example.com", "A", 300, "1.2.3.4"))},
			batch: []types.Change{create(rrs("WWW.Example.com.", "A", 300, "1.2.3.5"))},
			code:  "InvalidChangeBatch", msg: "[Tried to create resource record set [name='www.example.com.', type='A'] but it already exists]"},
		{name: "create existing with set identifier",
			setup: []types.Change{create(weighted(rrs("geo.example.com", "A", 300, "1.2.3.4"), "Default", 1))},
			batch: []types.Change{create(weighted(rrs("geo.example.com", "A", 300, "1.2.3.4"), "Default", 1))},
			code:  "InvalidChangeBatch", msg: "[Tried to create resource record set [name='geo.example.com.', type='A', set-identifier='Default'] but it already exists]"},
		{name: "two failures reported together",
			setup: []types.Change{create(rrs("a.example.com", "A", 300, "1.2.3.4")), create(rrs("b.example.com", "A", 300, "1.2.3.4"))},
			batch: []types.Change{create(rrs("a.example.com", "A", 300, "1.2.3.4")), create(rrs("b.example.com", "A", 300, "1.2.3.4"))},
			code:  "InvalidChangeBatch", msg: "[Tried to create resource record set [name='a.example.com.', type='A'] but it already exists, Tried to create resource record set [name='b.example.com.', type='A'] but it already exists]"},
		{name: "delete missing",
			batch: []types.Change{del(rrs("k.example.com", "A", 300, "1.2.3.4"))},
			code:  "InvalidChangeBatch", msg: "[Tried to delete resource record set [name='k.example.com.', type='A'] but it was not found]"},
		{name: "delete missing with set identifier",
			batch: []types.Change{del(weighted(rrs("k.example.com", "A", 300, "1.2.3.4"), "one", 1))},
			code:  "InvalidChangeBatch", msg: "[Tried to delete resource record set [name='k.example.com.', type='A', set-identifier='one'] but it was not found]"},
		{name: "delete with other values",
			setup: []types.Change{create(rrs("x.example.com", "A", 300, "1.2.3.4"))},
			batch: []types.Change{del(rrs("x.example.com", "A", 300, "1.2.3.5"))},
			code:  "InvalidChangeBatch", msg: "[Tried to delete resource record set [name='x.example.com.', type='A'] but the values provided do not match the current values]"},
		{name: "delete with other TTL",
			setup: []types.Change{create(rrs("x.example.com", "A", 300, "1.2.3.4"))},
			batch: []types.Change{del(rrs("x.example.com", "A", 60, "1.2.3.4"))},
			code:  "InvalidChangeBatch", msg: "[Tried to delete resource record set [name='x.example.com.', type='A'] but the values provided do not match the current values]"},
		{name: "delete with other weight",
			setup: []types.Change{create(weighted(rrs("x.example.com", "A", 300, "1.2.3.4"), "a", 10))},
			batch: []types.Change{del(weighted(rrs("x.example.com", "A", 300, "1.2.3.4"), "a", 20))},
			code:  "InvalidChangeBatch", msg: "[Tried to delete resource record set [name='x.example.com.', type='A', set-identifier='a'] but the values provided do not match the current values]"},
		{name: "CNAME next to A",
			setup: []types.Change{create(rrs("x.example.com", "A", 300, "1.2.3.4"))},
			batch: []types.Change{create(rrs("x.example.com", "CNAME", 300, "y.example.com"))},
			code:  "InvalidChangeBatch", msg: "[RRSet of type CNAME with DNS name x.example.com. is not permitted as it conflicts with other records with the same DNS name in zone example.com.]"},
		{name: "A next to CNAME",
			setup: []types.Change{create(rrs("demo.example.com", "CNAME", 300, "y.example.com"))},
			batch: []types.Change{create(rrs("demo.example.com", "A", 300, "1.2.3.4"))},
			code:  "InvalidChangeBatch", msg: "[RRSet of type A with DNS name demo.example.com. is not permitted because a conflicting RRSet of type  CNAME with the same DNS name already exists in zone example.com.]"},
		{name: "CNAME at apex",
			batch: []types.Change{create(rrs("example.com", "CNAME", 300, "y.example.org"))},
			code:  "InvalidChangeBatch", msg: "[RRSet of type CNAME with DNS name example.com. is not permitted at apex in zone example.com.]"},
		{name: "name outside zone",
			batch: []types.Change{create(rrs("www.example.org", "A", 300, "1.2.3.4"))},
			code:  "InvalidChangeBatch", msg: "[RRSet with DNS name www.example.org. is not permitted in zone example.com.]"},
		{name: "suffix without label boundary",
			batch: []types.Change{create(rrs("badexample.com", "A", 300, "1.2.3.4"))},
			code:  "InvalidChangeBatch", msg: "[RRSet with DNS name badexample.com. is not permitted in zone example.com.]"},
		{name: "set identifier where simple set exists",
			setup: []types.Change{create(rrs("api.example.com", "A", 300, "1.2.3.4"))},
			batch: []types.Change{create(failover(rrs("api.example.com", "A", 300, "1.2.3.5"), "primary", "PRIMARY"))},
			code:  "InvalidChangeBatch", msg: "[RRSet with DNS name api.example.com., type A, SetIdentifier primary cannot be created as a non-weighted set exists with the same name and type.]"},
		{name: "simple set where weighted sets exist",
			setup: []types.Change{create(weighted(rrs("api.example.com", "A", 300, "1.2.3.4"), "a", 1))},
			batch: []types.Change{create(rrs("api.example.com", "A", 300, "1.2.3.5"))},
			code:  "InvalidChangeBatch", msg: "[RRSet with DNS name api.example.com., type A cannot be created as other RRSets exist with the same name and type.]"},
		{name: "duplicate value",
			batch: []types.Change{create(rrs("d.example.com", "A", 300, "10.160.0.188", "10.160.0.188"))},
			code:  "InvalidChangeBatch", msg: "[Duplicate Resource Record: '10.160.0.188']"},
		{name: "bad A value",
			batch: []types.Change{create(rrs("d.example.com", "A", 300, "foo"))},
			code:  "InvalidChangeBatch", msg: "[Invalid Resource Record: 'FATAL problem: ARRDATAIllegalIPv4Address (Value is not a valid IPv4 address) encountered with 'foo'']"},
		{name: "IPv6 in A",
			batch: []types.Change{create(rrs("d.example.com", "A", 300, "::1"))},
			code:  "InvalidChangeBatch", msg: "[Invalid Resource Record: 'FATAL problem: ARRDATAIllegalIPv4Address (Value is not a valid IPv4 address) encountered with '::1'']"},
		{name: "bad AAAA value",
			batch: []types.Change{create(rrs("d.example.com", "AAAA", 300, "1.2.3.4"))},
			code:  "InvalidChangeBatch", msg: "[Invalid Resource Record: 'FATAL problem: AAAARRDATAIllegalIPv6Address (Value is not a valid IPv6 address) encountered with '1.2.3.4'']"},
		{name: "unquoted TXT",
			batch: []types.Change{create(rrs("t.example.com", "TXT", 300, "abc"))},
			code:  "InvalidChangeBatch", msg: "[Invalid Resource Record: 'FATAL problem: InvalidCharacterString (Value should be enclosed in quotation marks) encountered with 'abc'']"},
		{name: "TXT string over 255",
			batch: []types.Change{create(rrs("t.example.com", "TXT", 300, `"`+strings.Repeat("a", 256)+`"`))},
			code:  "InvalidChangeBatch", msg: "[Invalid Resource Record: 'FATAL problem: TXTRDATATooLong (Value is too long) encountered with '\"" + strings.Repeat("a", 256) + "\"'']"},
		{name: "alias outside ELB zone",
			batch: []types.Change{create(alias("lb.example.com", "A", elbZone, "foo.eu-west-1.elb.amazonaws.com", true))},
			code:  "InvalidChangeBatch", msg: "[Tried to create an alias that targets foo.eu-west-1.elb.amazonaws.com., type A in zone Z35SXDOTRQ7X7K, but the alias target name does not lie within the target zone]"},
		{name: "same-zone alias without target",
			batch: []types.Change{create(alias("a.example.com", "A", "SELF", "x.example.com", false))},
			code:  "InvalidChangeBatch", msg: "[Tried to create an alias that targets x.example.com., type A in zone SELF, but that target was not found]"},
		{name: "same-zone alias to name outside the zone",
			batch: []types.Change{create(alias("a.example.com", "A", "SELF", "foo.us-east-1.elb.amazonaws.com", false))},
			code:  "InvalidChangeBatch", msg: "[Tried to create an alias that targets foo.us-east-1.elb.amazonaws.com., type A in zone SELF, but the alias target name does not lie within the target zone, Tried to create an alias that targets foo.us-east-1.elb.amazonaws.com., type A in zone SELF, but that target was not found]"},
		{name: "same-zone alias to other type",
			setup: []types.Change{create(rrs("t.example.com", "AAAA", 300, "::1"))},
			batch: []types.Change{create(alias("a.example.com", "A", "SELF", "t.example.com", false))},
			code:  "InvalidChangeBatch", msg: "[Tried to create an alias that targets t.example.com., type A in zone SELF, but that target was not found]"},
		{name: "more than 1000 records",
			batch: []types.Change{create(rrs("m.example.com", "A", 300, manyValues(400, 0)...)), create(rrs("n.example.com", "A", 300, manyValues(400, 0)...)), create(rrs("o.example.com", "A", 300, manyValues(201, 0)...))},
			code:  "InvalidChangeBatch", msg: "[Number of records limit of 1000 exceeded.]"},
		{name: "UPSERT counts double",
			batch: []types.Change{upsert(rrs("m.example.com", "A", 300, manyValues(300, 0)...)), upsert(rrs("n.example.com", "A", 300, manyValues(201, 0)...))},
			code:  "InvalidChangeBatch", msg: "[Number of records limit of 1000 exceeded.]"},
		{name: "more than 32000 characters",
			batch: []types.Change{create(rrs("m.example.com", "TXT", 300, manyValues(200, 200)...))},
			code:  "InvalidChangeBatch", msg: "[Number of characters limit of 32000 exceeded.]"},
		{name: "more than 400 values in a set",
			batch: []types.Change{create(rrs("m.example.com", "A", 300, manyValues(401, 0)...))},
			code:  "InvalidChangeBatch", msg: "[RRSet with DNS name m.example.com., type A has 401 values, more than the limit of 400]"},
		{name: "CREATE twice in one batch",
			batch: []types.Change{create(rrs("www.example.com", "A", 300, "1.2.3.4")), create(rrs("www.example.com", "A", 300, "1.2.3.4"))},
			code:  "InvalidChangeBatch", msg: "[The request contains an invalid set of changes for a resource record set 'A www.example.com.']"},
		{name: "DELETE twice in one batch",
			setup: []types.Change{create(rrs("www.example.com", "A", 300, "1.2.3.4"))},
			batch: []types.Change{del(rrs("www.example.com", "A", 300, "1.2.3.4")), del(rrs("www.example.com", "A", 300, "1.2.3.4"))},
			code:  "InvalidChangeBatch", msg: "[The request contains an invalid set of changes for a resource record set 'A www.example.com.']"},
		{name: "delete apex SOA",
			batch: []types.Change{del(rrs("example.com", "SOA", 900, "SOAVALUE"))},
			code:  "InvalidChangeBatch", msg: "[A HostedZone must contain exactly one SOA record.]"},
		{name: "delete apex NS",
			batch: []types.Change{del(rrs("example.com", "NS", 172800, "NSVALUES"))},
			code:  "InvalidChangeBatch", msg: "[A HostedZone must contain at least one NS record for the zone itself.]"},
		{name: "second failover primary",
			setup: []types.Change{create(failover(rrs("f.example.com", "A", 300, "1.2.3.4"), "one", "PRIMARY"))},
			batch: []types.Change{create(failover(rrs("f.example.com", "A", 300, "1.2.3.5"), "two", "PRIMARY"))},
			code:  "InvalidChangeBatch", msg: "[RRSet with DNS name f.example.com., type A, SetIdentifier two cannot be created because the RRSet with SetIdentifier one already uses Failover PRIMARY]"},
		{name: "DELETE without TTL and values",
			batch: []types.Change{del(&types.ResourceRecordSet{Name: aws.String("example.com"), Type: "A"})},
			code:  "InvalidInput", msg: "Invalid request: Expected exactly one of [AliasTarget, all of [TTL, and ResourceRecords], or TrafficPolicyInstanceId], but found none in Change with [Action=DELETE, Name=example.com, Type=A, SetIdentifier=null]"},
		{name: "alias with TTL",
			batch: []types.Change{create(withTTL(alias("a.example.com", "A", elbZone, "x.us-east-1.elb.amazonaws.com", true), 60))},
			code:  "InvalidInput", msg: "Invalid request: Expected exactly one of [AliasTarget, all of [TTL, and ResourceRecords], or TrafficPolicyInstanceId], but found more than one in Change with [Action=CREATE, Name=a.example.com, Type=A, SetIdentifier=null]"},
		{name: "routing policy without set identifier",
			batch: []types.Change{create(&types.ResourceRecordSet{Name: aws.String("recordset."), Type: "A", TTL: aws.Int64(60), Weight: aws.Int64(1), ResourceRecords: []types.ResourceRecord{{Value: aws.String("1.2.3.4")}}})},
			code:  "InvalidInput", msg: "Invalid request: Missing field 'SetIdentifier' in Change with [Action=CREATE, Name=recordset., Type=A, SetIdentifier=null]"},
		{name: "set identifier without routing policy",
			batch: []types.Change{upsert(withID(rrs("t.example.com", "TXT", 60, `"x"`), "id1"))},
			code:  "InvalidInput", msg: "Invalid request: Expected exactly one of [Weight, Region, Failover, GeoLocation, MultiValueAnswer, GeoProximityLocation, or CidrRoutingConfig], but found none in Change with [Action=UPSERT, Name=t.example.com, Type=TXT, SetIdentifier=id1]"},
		{name: "two routing policies",
			batch: []types.Change{create(withRegion(weighted(rrs("t.example.com", "A", 60, "1.2.3.4"), "id1", 1), "eu-west-1"))},
			code:  "InvalidInput", msg: "Invalid request: Expected exactly one of [Weight, Region, Failover, GeoLocation, MultiValueAnswer, GeoProximityLocation, or CidrRoutingConfig], but found more than one in Change with [Action=CREATE, Name=t.example.com, Type=A, SetIdentifier=id1]"},
		{name: "negative TTL",
			batch: []types.Change{create(rrs("t.example.com", "A", -1, "1.2.3.4"))},
			code:  "InvalidInput", msg: "1 validation error detected: Value '-1' at 'changeBatch.changes.1.member.resourceRecordSet.tTL' failed to satisfy constraint: Member must have value greater than or equal to 0"},
		{name: "two range errors",
			batch: []types.Change{create(rrs("t.example.com", "A", 60, "1.2.3.4")), create(weighted(rrs("u.example.com", "A", 2147483648, "1.2.3.4"), "w", 256))},
			code:  "InvalidInput", msg: "2 validation errors detected: Value '2147483648' at 'changeBatch.changes.2.member.resourceRecordSet.tTL' failed to satisfy constraint: Member must have value less than or equal to 2147483647; Value '256' at 'changeBatch.changes.2.member.resourceRecordSet.weight' failed to satisfy constraint: Member must have value less than or equal to 255"},
		{name: "unknown type",
			batch: []types.Change{create(rrs("t.example.com", "BOGUS", 60, "1.2.3.4"))},
			code:  "InvalidInput", msg: "Invalid XML ; cvc-enumeration-valid: Value 'BOGUS' is not facet-valid with respect to enumeration '[SOA, A, TXT, NS, CNAME, MX, NAPTR, PTR, SRV, SPF, AAAA, CAA, DS, TLSA, SSHFP, SVCB, HTTPS]'. It must be a value from the enumeration."},
		{name: "unknown action",
			batch: []types.Change{{Action: "REPLACE", ResourceRecordSet: rrs("t.example.com", "A", 60, "1.2.3.4")}},
			code:  "InvalidInput", msg: "Invalid XML ; cvc-enumeration-valid: Value 'REPLACE' is not facet-valid with respect to enumeration '[CREATE, DELETE, UPSERT]'. It must be a value from the enumeration."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := startEmu(t, route53emu.Options{})
			zoneID := e.createZone(t, "example.com")
			fix := func(cs []types.Change) []types.Change {
				for _, c := range cs {
					rs := c.ResourceRecordSet
					if rs.AliasTarget != nil && aws.ToString(rs.AliasTarget.HostedZoneId) == "SELF" {
						rs.AliasTarget.HostedZoneId = aws.String(strings.TrimPrefix(zoneID, "/hostedzone/"))
					}
					if len(rs.ResourceRecords) == 1 && (aws.ToString(rs.ResourceRecords[0].Value) == "SOAVALUE" || aws.ToString(rs.ResourceRecords[0].Value) == "NSVALUES") {
						rs.ResourceRecords = apexValues(t, e, zoneID, rs.Type)
					}
				}
				return cs
			}
			if len(tc.setup) > 0 {
				e.mustChange(t, zoneID, fix(tc.setup)...)
			}
			before := e.listAll(t, zoneID)
			err := e.change(zoneID, fix(tc.batch)...)
			if err == nil {
				t.Fatalf("batch accepted, want %s", tc.code)
			}
			code, msg := apiError(t, err)
			msg = strings.ReplaceAll(msg, strings.TrimPrefix(zoneID, "/hostedzone/"), "SELF")
			if code != tc.code || msg != tc.msg {
				t.Errorf("got  %s: %s\nwant %s: %s", code, msg, tc.code, tc.msg)
			}
			var re *awshttp.ResponseError
			if !errors.As(err, &re) || re.HTTPStatusCode() != 400 || re.ServiceRequestID() == "" {
				t.Errorf("want HTTP 400 with a request id, got %v", err)
			}
			if after := e.listAll(t, zoneID); len(after) != len(before) {
				t.Errorf("rejected batch changed the zone: %d sets before, %d after", len(before), len(after))
			}
		})
	}
}

func apexValues(t *testing.T, e *emu, zoneID string, typ types.RRType) []types.ResourceRecord {
	for _, s := range e.listAll(t, zoneID) {
		if s.Type == typ {
			return s.ResourceRecords
		}
	}
	t.Fatalf("no apex %s", typ)
	return nil
}

func failover(rs *types.ResourceRecordSet, id string, f types.ResourceRecordSetFailover) *types.ResourceRecordSet {
	rs.SetIdentifier = aws.String(id)
	rs.Failover = f
	return rs
}

func withRegion(rs *types.ResourceRecordSet, region string) *types.ResourceRecordSet {
	rs.Region = types.ResourceRecordSetRegion(region)
	return rs
}

func withTTL(rs *types.ResourceRecordSet, ttl int64) *types.ResourceRecordSet {
	rs.TTL = aws.Int64(ttl)
	return rs
}

func TestChangeBatchIsAtomic(t *testing.T) {
	e := startEmu(t, route53emu.Options{})
	id := e.createZone(t, "example.com")
	err := e.change(id,
		create(rrs("ok.example.com", "A", 300, "1.2.3.4")),
		create(rrs("bad.example.com", "A", 300, "not-an-ip")))
	if err == nil {
		t.Fatal("batch with an invalid change accepted")
	}
	if n := len(e.listAll(t, id)); n != 2 {
		t.Fatalf("zone holds %d sets after a rejected batch, want only SOA and NS", n)
	}
}

func TestChangeBatchDeleteThenCreateAndUpsert(t *testing.T) {
	e := startEmu(t, route53emu.Options{})
	id := e.createZone(t, "example.com")
	e.mustChange(t, id, create(rrs("www.example.com", "CNAME", 300, "old.example.org.")))
	// DELETE with the value written differently (case, no dot), then CREATE an
	// alias of another type at the same name: the documented update method.
	e.mustChange(t, id,
		del(rrs("WWW.example.com", "CNAME", 300, "OLD.example.org")),
		create(alias("www.example.com", "A", "Z2FDTNDATAQYW2", "D111111ABCDEF8.CloudFront.net", false)))
	e.mustChange(t, id, upsert(rrs("www.example.com", "AAAA", 60, "2001:db8::1")))
	e.mustChange(t, id, upsert(rrs("www.example.com", "AAAA", 120, "2001:db8::2")))
	sets := e.listAll(t, id)
	var got []string
	for _, s := range sets {
		line := fmt.Sprintf("%s %s", *s.Name, s.Type)
		if s.AliasTarget != nil {
			line += fmt.Sprintf(" alias %s %s ttl=%v", *s.AliasTarget.HostedZoneId, *s.AliasTarget.DNSName, s.TTL)
		} else {
			line += fmt.Sprintf(" %d %s", *s.TTL, *s.ResourceRecords[0].Value)
		}
		got = append(got, line)
	}
	want := []string{
		"www.example.com. A alias Z2FDTNDATAQYW2 d111111abcdef8.cloudfront.net. ttl=<nil>",
		"www.example.com. AAAA 120 2001:db8::2",
	}
	if g := strings.Join(got[2:], "\n"); g != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", g, strings.Join(want, "\n"))
	}
	out, err := e.r53.GetHostedZone(context.Background(), &route53.GetHostedZoneInput{Id: aws.String(id)})
	if err != nil || aws.ToInt64(out.HostedZone.ResourceRecordSetCount) != 4 {
		t.Fatalf("ResourceRecordSetCount = %v (%v), want 4", aws.ToInt64(out.HostedZone.ResourceRecordSetCount), err)
	}
}

func TestChangeBatchOnMissingZone(t *testing.T) {
	e := startEmu(t, route53emu.Options{})
	err := e.change("/hostedzone/ZNOPE", create(rrs("a.example.com", "A", 60, "1.2.3.4")))
	code, msg := apiError(t, err)
	var nf *types.NoSuchHostedZone
	var re *awshttp.ResponseError
	if code != "NoSuchHostedZone" || msg != "No hosted zone found with ID: ZNOPE" || !errors.As(err, &nf) || !errors.As(err, &re) || re.HTTPStatusCode() != 404 {
		t.Fatalf("got %s %q (%v)", code, msg, err)
	}
}

func TestRoutingPoliciesRoundTrip(t *testing.T) {
	e := startEmu(t, route53emu.Options{})
	id := e.createZone(t, "example.com")
	hc := "abcdef01-2345-6789-abcd-ef0123456789"
	geo := rrs("geo.example.com", "A", 60, "1.1.1.1")
	geo.SetIdentifier, geo.GeoLocation = aws.String("de"), &types.GeoLocation{CountryCode: aws.String("DE")}
	geoDefault := rrs("geo.example.com", "A", 60, "1.1.1.2")
	geoDefault.SetIdentifier, geoDefault.GeoLocation = aws.String("default"), &types.GeoLocation{CountryCode: aws.String("*")}
	mv := rrs("mv.example.com", "A", 60, "1.1.1.3")
	mv.SetIdentifier, mv.MultiValueAnswer, mv.HealthCheckId = aws.String("m1"), aws.Bool(true), aws.String(hc)
	gp := rrs("gp.example.com", "A", 60, "1.1.1.4")
	gp.SetIdentifier, gp.GeoProximityLocation = aws.String("g1"), &types.GeoProximityLocation{AWSRegion: aws.String("eu-west-1"), Bias: aws.Int32(-10)}
	e.mustChange(t, id,
		create(weighted(rrs("w.example.com", "A", 60, "1.2.3.4", "1.2.3.5"), "b", 0)),
		create(weighted(rrs("w.example.com", "A", 60, "1.2.3.6"), "a", 255)),
		create(withRegion(withID(rrs("lat.example.com", "CNAME", 60, "x.example.org"), "eu"), "eu-west-1")),
		create(failover(rrs("f.example.com", "A", 60, "1.2.3.4"), "p", "PRIMARY")),
		create(failover(rrs("f.example.com", "A", 60, "1.2.3.5"), "s", "SECONDARY")),
		create(geo), create(geoDefault), create(mv), create(gp),
	)
	sets := e.listAll(t, id)
	byID := map[string]types.ResourceRecordSet{}
	for _, s := range sets {
		byID[*s.Name+"/"+aws.ToString(s.SetIdentifier)] = s
	}
	if s := byID["w.example.com./a"]; aws.ToInt64(s.Weight) != 255 {
		t.Errorf("weighted a: weight %v", s.Weight)
	}
	if s := byID["w.example.com./b"]; aws.ToInt64(s.Weight) != 0 || len(s.ResourceRecords) != 2 {
		t.Errorf("weighted b: %+v", s)
	}
	if s := byID["lat.example.com./eu"]; s.Region != "eu-west-1" {
		t.Errorf("latency: region %q", s.Region)
	}
	if s := byID["geo.example.com./default"]; s.GeoLocation == nil || aws.ToString(s.GeoLocation.CountryCode) != "*" {
		t.Errorf("geo default: %+v", s.GeoLocation)
	}
	if s := byID["mv.example.com./m1"]; !aws.ToBool(s.MultiValueAnswer) || aws.ToString(s.HealthCheckId) != hc {
		t.Errorf("multivalue: %+v", s)
	}
	if s := byID["gp.example.com./g1"]; s.GeoProximityLocation == nil || aws.ToInt32(s.GeoProximityLocation.Bias) != -10 {
		t.Errorf("geoproximity: %+v", s.GeoProximityLocation)
	}
	// Weighted sets with one name and type list by SetIdentifier.
	var order []string
	for _, s := range sets {
		if *s.Name == "w.example.com." {
			order = append(order, *s.SetIdentifier)
		}
	}
	if strings.Join(order, ",") != "a,b" {
		t.Errorf("weighted order %v, want a,b", order)
	}
	// A DELETE that omits MultiValueAnswer still matches (real AWS tolerates it).
	mvDel := rrs("mv.example.com", "A", 60, "1.1.1.3")
	mvDel.SetIdentifier, mvDel.HealthCheckId = aws.String("m1"), aws.String(hc)
	e.mustChange(t, id, del(mvDel))
}
