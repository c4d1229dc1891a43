package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/app"
	"github.com/zonekeeper/zonekeeper/internal/route53emu"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// diffEmulator is one Route 53 emulator with a public and a private example.com under fixed ids, so
// that aws-hosted-zone-id names the same zone for both tools.
func diffEmulator(t *testing.T) (*route53emu.Server, string) {
	t.Helper()
	srv := route53emu.New(route53emu.Options{})
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	if _, err := srv.Seed(route53emu.Seed{Zones: []route53emu.SeedZone{
		{ID: "ZPUBDIFF", Name: "example.com"},
		{ID: "ZPRIVDIFF", Name: "example.com", Private: true, VPCID: "vpc-diff", VPCRegion: "us-east-1"},
	}}); err != nil {
		t.Fatal(err)
	}
	return srv, hs.URL
}

// diffSets is placedSets with each set's TTL.
func diffSets(srv *route53emu.Server) map[string]bool {
	out := map[string]bool{}
	for _, z := range srv.Dump() {
		for _, rs := range z.Records {
			if rs.Type == "SOA" || rs.Type == "NS" {
				continue
			}
			line := []string{z.ID, strings.TrimSuffix(rs.Name, "."), rs.Type}
			if rs.SetIdentifier != nil {
				line = append(line, "set="+*rs.SetIdentifier)
			}
			if rs.TTL != nil {
				line = append(line, "ttl="+string(*rs.TTL))
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
			out[strings.Join(line, " ")] = true
		}
	}
	return out
}

// TestAWSGeoproximityAndPinMatchExternalDNS runs every built external-dns version and zonekeeper once
// each, with the same flags, over the same Services, each against its own Route 53 emulator holding a
// public and a private example.com, and compares the record sets one by one: zone, name, type, set
// identifier, TTL, values and GeoProximityLocation. Then each tool runs again on its own zone:
// zonekeeper must find nothing to change.
func TestAWSGeoproximityAndPinMatchExternalDNS(t *testing.T) {
	peers := testbed.ExternalDNSPeers(t)
	awsCredentials(t)
	kube := testbed.StartKubeAPIServer(t)
	e := &env{kube: kube, client: kube.Client(t)}
	for _, s := range []struct {
		name, ip string
		kv       []string
	}{
		{"east", "10.40.0.1", []string{"hostname", "gp.example.com", "set-identifier", "east", "aws-geoproximity-region", "us-east-1"}},
		{"denver", "10.40.0.2", []string{"hostname", "gp.example.com", "set-identifier", "denver", "aws-geoproximity-local-zone-group", "us-west-2-den-1", "aws-geoproximity-bias", "-15"}},
		{"coords", "10.40.0.3", []string{"hostname", "gp.example.com", "set-identifier", "coords", "aws-geoproximity-coordinates", "49.22,-74.01", "aws-geoproximity-bias", "10"}},
		{"badbias", "10.40.0.4", []string{"hostname", "gpbad.example.com", "set-identifier", "b", "aws-geoproximity-region", "ap-south-1", "aws-geoproximity-bias", "abc"}},
		{"both", "10.40.0.5", []string{"hostname", "both.example.com"}},
		{"private", "10.40.0.6", []string{"hostname", "int.example.com", "aws-hosted-zone-id", "ZPRIVDIFF"}},
		{"public", "10.40.0.7", []string{"hostname", "pub.example.com", "aws-hosted-zone-id", "/hostedzone/ZPUBDIFF"}},
		{"geopin", "10.40.0.8", []string{"hostname", "gpp.example.com", "set-identifier", "p", "aws-geoproximity-region", "eu-west-1", "aws-hosted-zone-id", "ZPRIVDIFF"}},
		{"nopin", "10.40.0.9", []string{"hostname", "nope.example.com", "aws-hosted-zone-id", "ZNOPE"}},
	} {
		e.createService(t, annotated(loadBalancer(s.name, "default", nil), s.kv...), s.ip)
	}
	flags := []string{"--provider=aws", "--source=service", "--registry=txt", "--txt-owner-id=diff", "--policy=sync",
		"--domain-filter=example.com", "--kubeconfig=" + kube.Kubeconfig}

	type pin struct {
		onlyED bool
		v021   bool // only against v0.21.0
		re     *regexp.Regexp
		why    string
	}
	pins := []pin{
		{onlyED: true, re: regexp.MustCompile(`^\S+ (a-)?gpbad\.example\.com `),
			why: `aws-geoproximity-bias "abc": external-dns logs a warning and writes bias 0; zonekeeper refuses the record with an Event naming the annotation`},
		{onlyED: true, v021: true, re: regexp.MustCompile(`^ZPUBDIFF (a-)?(int|gpp)\.example\.com |^ZPRIVDIFF (a-)?pub\.example\.com |^\S+ (a-)?nope\.example\.com `),
			why: "aws-hosted-zone-id: v0.21 does not know it and writes the record into every zone its name matches"},
	}
	for _, peer := range peers {
		t.Run(peer.Version, func(t *testing.T) {
			edSrv, edURL := diffEmulator(t)
			zkSrv, zkURL := diffEmulator(t)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			runED := func() string {
				cmd := exec.CommandContext(ctx, peer.Binary, append(append(append([]string{}, flags...), peer.Args...), "--once", "--log-level=debug",
					fmt.Sprintf("--metrics-address=127.0.0.1:%d", testbed.FreePort(t)))...)
				cmd.Env = append(os.Environ(), "AWS_ENDPOINT_URL_ROUTE_53="+edURL)
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("external-dns %s: %v\n%s", peer.Version, err, tail(string(out), 6000))
				}
				return string(out)
			}
			runZK := func() string {
				t.Setenv("AWS_ENDPOINT_URL_ROUTE_53", zkURL)
				var log bytes.Buffer
				if code := app.Main(ctx, append(append([]string{}, flags...), "--once"), &bytes.Buffer{}, &log, os.Getenv); code != 0 {
					t.Fatalf("zonekeeper exited %d:\n%s", code, tail(log.String(), 6000))
				}
				return log.String()
			}
			start := time.Now()
			edLog := runED()
			edTime := time.Since(start)
			start = time.Now()
			zkLog := runZK()
			t.Logf("external-dns %s %s, zonekeeper %s", peer.Version, edTime.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
			compare := func(phase string, pins []pin) (ed, zk map[string]bool) {
				ed, zk = diffSets(edSrv), diffSets(zkSrv)
				var unexpected []string
				pinned := map[int]int{}
				check := func(r string, onlyED bool) {
					for k, p := range pins {
						if p.onlyED == onlyED && p.re.MatchString(r) && (!p.v021 || peer.Version == "v0.21.0") {
							pinned[k]++
							return
						}
					}
					side := "only zonekeeper:   "
					if onlyED {
						side = "only external-dns: "
					}
					unexpected = append(unexpected, side+r)
				}
				for r := range ed {
					if !zk[r] {
						check(r, true)
					}
				}
				for r := range zk {
					if !ed[r] {
						check(r, false)
					}
				}
				sort.Strings(unexpected)
				if len(unexpected) > 0 {
					t.Errorf("%s: %d record sets differ (%d from external-dns, %d from zonekeeper):\n%s\nexternal-dns log:\n%s\nzonekeeper log:\n%s",
						phase, len(unexpected), len(ed), len(zk), strings.Join(unexpected, "\n"), tail(edLog, 4000), tail(zkLog, 3000))
				}
				for k, p := range pins {
					if pinned[k] == 0 && (!p.v021 || peer.Version == "v0.21.0") {
						t.Errorf("%s: the pinned difference %q did not show", phase, p.why)
					}
				}
				return ed, zk
			}
			ed, zk := compare("first run", pins)
			var geo, shared int
			for r := range zk {
				if ed[r] {
					shared++
					if strings.Contains(r, "geoproximity") {
						geo++
					}
				}
			}
			if geo < 6 {
				t.Errorf("only %d geoproximity sets in common: %v", geo, zk)
			}
			t.Logf("%d record sets identical, %d from external-dns, %d from zonekeeper", shared, len(ed), len(zk))
			for _, w := range []string{`aws-geoproximity-bias \"abc\"`, `aws-hosted-zone-id \"ZNOPE\"`} {
				if !strings.Contains(zkLog, w) {
					t.Errorf("zonekeeper's log does not name %s:\n%s", w, tail(zkLog, 3000))
				}
			}

			// Second runs on the tools' own zones.
			zkSrv.ClearCalls()
			runZK()
			if n := zkSrv.Counters().Calls["ChangeResourceRecordSets"]; n != 0 {
				t.Errorf("zonekeeper's second run sent %d ChangeResourceRecordSets", n)
			}
			edSrv.ClearCalls()
			edLog = runED()
			var again []string
			for _, l := range strings.Split(edLog, "\n") {
				if i := strings.Index(l, "Desired change: "); i >= 0 {
					again = append(again, l[i:])
				}
			}
			t.Logf("external-dns %s second run: %d ChangeResourceRecordSets:\n%s", peer.Version,
				edSrv.Counters().Calls["ChangeResourceRecordSets"], strings.Join(again, "\n"))

			// The pin of int.example.com moves from the private to the public zone.
			setPin := func(zoneID string) {
				svc, err := e.client.CoreV1().Services("default").Get(context.Background(), "private", metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				svc.Annotations["external-dns.alpha.kubernetes.io/aws-hosted-zone-id"] = zoneID
				if _, err := e.client.CoreV1().Services("default").Update(context.Background(), svc, metav1.UpdateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			setPin("ZPUBDIFF")
			defer setPin("ZPRIVDIFF")
			edLog, zkLog = runED(), runZK()
			moved := pins[:1:1]
			moved = append(moved, pin{onlyED: true, re: regexp.MustCompile(`^ZPRIVDIFF (a-)?int\.example\.com `),
				why: "the pin moved to the public zone: external-dns leaves the private copy (v0.21 ignores the pin)"})
			if peer.Version == "v0.21.0" {
				moved = append(moved, pin{onlyED: true, re: regexp.MustCompile(`^ZPUBDIFF (a-)?gpp\.example\.com |^ZPRIVDIFF (a-)?pub\.example\.com |^\S+ (a-)?nope\.example\.com `),
					why: "aws-hosted-zone-id: v0.21 writes into every zone"})
			}
			if _, zk := compare("pin moved", moved); zk["ZPRIVDIFF int.example.com A ttl=300 10.40.0.6"] || !zk["ZPUBDIFF int.example.com A ttl=300 10.40.0.6"] {
				t.Errorf("zonekeeper did not move int.example.com to the public zone: %v", zk)
			}
		})
	}
}
