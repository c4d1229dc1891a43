package e2e

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	awsprovider "github.com/zonekeeper/zonekeeper/internal/provider/aws"
	"github.com/zonekeeper/zonekeeper/internal/registry/txt"
	"github.com/zonekeeper/zonekeeper/internal/route53emu"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// placedSets lists every record set of the emulator (SOA and NS left out) as
// "zoneID name type [setid] values [geoproximity]", sorted: which zone each set landed in and its
// routing location.
func placedSets(srv *route53emu.Server) []string {
	var out []string
	for _, z := range srv.Dump() {
		for _, rs := range z.Records {
			if rs.Type == "SOA" || rs.Type == "NS" {
				continue
			}
			line := []string{z.ID, strings.TrimSuffix(rs.Name, "."), rs.Type}
			if rs.SetIdentifier != nil {
				line = append(line, *rs.SetIdentifier)
			}
			var vals []string
			if rs.ResourceRecords != nil {
				for _, v := range rs.ResourceRecords.Items {
					vals = append(vals, v.Value)
				}
			}
			sort.Strings(vals)
			line = append(line, strings.Join(vals, ","))
			if g := rs.GeoProximityLocation; g != nil {
				line = append(line, geoProximityText(g))
			}
			out = append(out, strings.Join(line, " "))
		}
	}
	sort.Strings(out)
	return out
}

func geoProximityText(g *route53emu.GeoProximityLocation) string {
	s := "geoproximity"
	if g.AWSRegion != nil {
		s += " region=" + *g.AWSRegion
	}
	if g.LocalZoneGroup != nil {
		s += " local-zone-group=" + *g.LocalZoneGroup
	}
	if c := g.Coordinates; c != nil {
		s += " coordinates=" + c.Latitude + "," + c.Longitude
	}
	if g.Bias != nil {
		s += " bias=" + string(*g.Bias)
	}
	return s
}

func expectPlaced(t *testing.T, srv *route53emu.Server, timeout time.Duration, want []string) {
	t.Helper()
	sort.Strings(want)
	testbed.Eventually(t, timeout, "record sets by zone", func() error {
		if got := placedSets(srv); strings.Join(got, "\n") != strings.Join(want, "\n") {
			return fmt.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		return nil
	})
}

// Geoproximity routing and aws-hosted-zone-id end to end (issue 11 defect 7): Services on a real
// kube-apiserver, the TXT registry, the aws provider through aws-sdk-go-v2 and the emulator holding a
// public and a private zone of the same name. Geoproximity sets are written with their location and
// a bias of 0 when none is given; a pinned record and its ownership TXT go into the pinned zone only;
// bad values are reported on their Service naming the annotation while the rest is published; removing
// the pin spreads the record to both zones, and deleting a pinned Service deletes from its zone only.
func TestAWSGeoproximityAndHostedZonePin(t *testing.T) {
	awsCredentials(t)
	kube := testbed.StartKubeAPIServer(t)
	e := &env{kube: kube, client: kube.Client(t)}
	srv := startEmulator(t, route53emu.Options{},
		route53emu.SeedZone{ID: "ZPUBLICE2E", Name: awsZone},
		route53emu.SeedZone{ID: "ZPRIVATEE2E", Name: awsZone, Private: true, VPCID: "vpc-e2e", VPCRegion: "us-east-1"})
	e.createService(t, annotated(loadBalancer("east", "default", nil), "hostname", "gp."+awsZone, "set-identifier", "east",
		"aws-geoproximity-region", "us-east-1"), "10.30.0.1")
	sydney := e.createService(t, annotated(loadBalancer("sydney", "default", nil), "hostname", "gp."+awsZone, "set-identifier", "sydney",
		"aws-geoproximity-coordinates", "-33.86,151.20", "aws-geoproximity-bias", "25", "aws-hosted-zone-id", "ZPRIVATEE2E"), "10.30.0.2")
	internal := e.createService(t, annotated(loadBalancer("internal", "default", nil), "hostname", "int."+awsZone,
		"aws-hosted-zone-id", "/hostedzone/ZPRIVATEE2E"), "10.30.0.3")
	e.createService(t, annotated(loadBalancer("bad", "default", nil), "hostname", "bad."+awsZone, "set-identifier", "x",
		"aws-geoproximity-region", "eu-west-1", "aws-geoproximity-bias", "500"), "10.30.0.4")
	e.createService(t, annotated(loadBalancer("badpin", "default", nil), "hostname", "bp."+awsZone, "aws-hosted-zone-id", "ZNOPE"), "10.30.0.5")
	st := startAWS(t, e, srv, txt.Config{}, awsprovider.Config{})

	both := func(rest ...string) []string {
		l := strings.Join(rest, " ")
		return []string{"ZPRIVATEE2E " + l, "ZPUBLICE2E " + l}
	}
	var want []string
	want = append(want, both("gp."+awsZone, "A east 10.30.0.1 geoproximity region=us-east-1 bias=0")...)
	want = append(want, both("a-gp."+awsZone, "TXT east", ownership("e2e", "service/default/east"), "geoproximity region=us-east-1 bias=0")...)
	pinned := []string{
		"ZPRIVATEE2E gp." + awsZone + " A sydney 10.30.0.2 geoproximity coordinates=-33.86,151.20 bias=25",
		"ZPRIVATEE2E a-gp." + awsZone + " TXT sydney " + ownership("e2e", "service/default/sydney") + " geoproximity coordinates=-33.86,151.20 bias=25",
	}
	want = append(want, pinned...)
	intOnly := []string{
		"ZPRIVATEE2E int." + awsZone + " A 10.30.0.3",
		"ZPRIVATEE2E a-int." + awsZone + " TXT " + ownership("e2e", "service/default/internal"),
	}
	expectPlaced(t, srv, converge, append(append([]string{}, want...), intOnly...))
	testbed.Eventually(t, 5*time.Second, "rejections reported on the Services", func() error {
		all := st.rejected.all()
		for _, w := range []string{
			`service/default/bad: bad.externaldns.test A: aws-geoproximity-bias "500" is not a whole number from -99 to 99`,
			`service/default/badpin: bp.externaldns.test A: aws-hosted-zone-id "ZNOPE" is not a hosted zone this provider manages`,
		} {
			if !strings.Contains(all, w) {
				return fmt.Errorf("no %q in\n%s", w, all)
			}
		}
		return nil
	})

	// The pin removed: the record and its TXT spread to both zones.
	delete(internal.Annotations, "external-dns.alpha.kubernetes.io/aws-hosted-zone-id")
	if _, err := e.client.CoreV1().Services("default").Update(context.Background(), internal, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	spread := append(both("int."+awsZone, "A 10.30.0.3"), both("a-int."+awsZone, "TXT", ownership("e2e", "service/default/internal"))...)
	expectPlaced(t, srv, converge, append(append([]string{}, want...), spread...))

	// The pinned Service deleted: its sets leave the private zone; the public zone never had them.
	if err := e.client.CoreV1().Services("default").Delete(context.Background(), sydney.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, w := range want {
		if !strings.Contains(w, " sydney ") {
			left = append(left, w)
		}
	}
	expectPlaced(t, srv, converge, append(left, spread...))
	if strings.Contains(st.rejected.all(), "sydney") || strings.Contains(st.rejected.all(), "internal") {
		t.Fatalf("unexpected rejections:\n%s", st.rejected.all())
	}
}
