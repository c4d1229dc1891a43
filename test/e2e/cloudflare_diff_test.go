package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/app"
	"github.com/zonekeeper/zonekeeper/internal/cloudflareemu"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// cloudflareEmulator is one Cloudflare emulator holding example.com, and its API base URL.
func cloudflareEmulator(t *testing.T) (*cloudflareemu.Server, string) {
	t.Helper()
	srv := cloudflareemu.New(cloudflareemu.Options{})
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	if _, err := srv.Seed(cloudflareemu.Seed{Zones: []cloudflareemu.SeedZone{{Name: "example.com"}}}); err != nil {
		t.Fatal(err)
	}
	return srv, hs.URL + cloudflareemu.APIPrefix
}

// cloudflareRecords renders every record of an emulator, ids left out, one line each: name, type,
// content, TTL, proxied, priority, data, comment and tags.
func cloudflareRecords(srv *cloudflareemu.Server) map[string]bool {
	out := map[string]bool{}
	for _, z := range cloudflareemu.WithoutIDs(srv.Dump()) {
		for _, r := range z.Records {
			prio := ""
			if r.Priority != nil {
				prio = fmt.Sprint(*r.Priority)
			}
			out[fmt.Sprintf("%s %s %s %s ttl=%d proxied=%t prio=%s data=%v comment=%q tags=%s", z.Name, r.Name, r.Type, r.Content,
				r.TTL, r.Proxied, prio, r.Data, r.Comment, strings.Join(r.Tags, ","))] = true
		}
		for _, h := range z.RegionalHostnames {
			out[fmt.Sprintf("%s regional %s=%s", z.Name, h.Hostname, h.RegionKey)] = true
		}
	}
	return out
}

// cloudflareWrites counts the calls that change records.
func cloudflareWrites(srv *cloudflareemu.Server) int {
	c := srv.Counters().Calls
	return c[cloudflareemu.OpRecordsBatch] + c[cloudflareemu.OpRecordsNew] + c[cloudflareemu.OpRecordsUpdate] +
		c[cloudflareemu.OpRecordsEdit] + c[cloudflareemu.OpRecordsDelete] + c[cloudflareemu.OpRegionalHostnamesNew] +
		c[cloudflareemu.OpRegionalHostnamesEdit] + c[cloudflareemu.OpRegionalHostnamesDelete]
}

// TestCloudflareMatchesExternalDNS runs every built external-dns version (v0.21.0 on cloudflare-go v5,
// v0.23.0 on v7) and zonekeeper once each, with the same flags, over the same Services, each against
// its own Cloudflare emulator (CLOUDFLARE_BASE_URL, CF_API_TOKEN=x), and compares every record field
// by field: name, type, content, TTL, proxied, comment, tags, and the TXT registry records with a
// prefix, and the regional hostnames (--cloudflare-region-key). Then each tool runs again on its own zone and writes nothing, and each runs on the other's
// zone (same owner id) and writes nothing.
func TestCloudflareMatchesExternalDNS(t *testing.T) {
	peers := testbed.ExternalDNSPeers(t)
	kube := testbed.StartKubeAPIServer(t)
	e := &env{kube: kube, client: kube.Client(t)}
	for _, s := range []struct {
		name, ip string
		kv       []string
	}{
		{"plain", "10.50.0.1", []string{"hostname", "web.example.com"}},
		{"proxied", "10.50.0.2", []string{"hostname", "app.example.com", "cloudflare-proxied", "true"}},
		{"direct", "10.50.0.3", []string{"hostname", "direct.example.com", "cloudflare-proxied", "false", "ttl", "120"}},
		{"commented", "10.50.0.4", []string{"hostname", "c.example.com", "cloudflare-record-comment", "team web"}},
		{"tagged", "10.50.0.5", []string{"hostname", "t.example.com", "cloudflare-tags", "team:web, env:prod"}},
		{"multi", "10.50.0.6", []string{"hostname", "m1.example.com,m2.example.com", "ttl", "600"}},
		{"outside", "10.50.0.7", []string{"hostname", "www.example.org"}},
	} {
		e.createService(t, annotated(loadBalancer(s.name, "default", nil), s.kv...), s.ip)
	}
	base := []string{"--provider=cloudflare", "--source=service", "--registry=txt", "--txt-owner-id=diff",
		"--txt-prefix=reg-%{record_type}.", "--policy=sync", "--domain-filter=example.com", "--kubeconfig=" + kube.Kubeconfig}
	flagSets := map[string][]string{
		"defaults":          nil,
		"proxied-commented": {"--cloudflare-proxied", "--cloudflare-record-comment=managed by a controller", "--cloudflare-dns-records-per-page=5"},
		"regional":          {"--cloudflare-region-key=eu"},
	}
	names := make([]string, 0, len(flagSets))
	for n := range flagSets {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, peer := range peers {
		for _, set := range names {
			t.Run(peer.Version+"/"+set, func(t *testing.T) {
				flags := append(append([]string{}, base...), flagSets[set]...)
				edSrv, edURL := cloudflareEmulator(t)
				zkSrv, zkURL := cloudflareEmulator(t)
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
				defer cancel()
				runED := func(url string) string {
					cmd := exec.CommandContext(ctx, peer.Binary, append(append(append([]string{}, flags...), peer.Args...), "--once", "--log-level=debug",
						fmt.Sprintf("--metrics-address=127.0.0.1:%d", testbed.FreePort(t)))...)
					cmd.Env = append(os.Environ(), "CLOUDFLARE_BASE_URL="+url, "CF_API_TOKEN=x")
					out, err := cmd.CombinedOutput()
					if err != nil {
						t.Fatalf("external-dns %s: %v\n%s", peer.Version, err, tail(string(out), 6000))
					}
					return string(out)
				}
				runZK := func(url string) string {
					t.Setenv("CLOUDFLARE_BASE_URL", url)
					t.Setenv("CF_API_TOKEN", "x")
					var log bytes.Buffer
					if code := app.Main(ctx, append(append([]string{}, flags...), "--once"), &bytes.Buffer{}, &log, os.Getenv); code != 0 {
						t.Fatalf("zonekeeper exited %d:\n%s", code, tail(log.String(), 6000))
					}
					if strings.Contains(log.String(), "CF_API_TOKEN=x") {
						t.Error("the token appears in zonekeeper's log")
					}
					return log.String()
				}
				edLog := runED(edURL)
				zkLog := runZK(zkURL)
				ed, zk := cloudflareRecords(edSrv), cloudflareRecords(zkSrv)
				if diffs := diffRecordSets(ed, zk); len(diffs) > 0 {
					t.Fatalf("%d records differ (%d from external-dns, %d from zonekeeper):\n%s\nexternal-dns log:\n%s\nzonekeeper log:\n%s",
						len(diffs), len(ed), len(zk), strings.Join(diffs, "\n"), tail(edLog, 4000), tail(zkLog, 3000))
				}
				comment, proxied := "", "false"
				if set == "proxied-commented" {
					comment, proxied = "managed by a controller", "true"
				}
				for _, want := range []string{
					fmt.Sprintf("example.com web.example.com A 10.50.0.1 ttl=1 proxied=%s prio= data=map[] comment=%q tags=", proxied, comment),
					fmt.Sprintf("example.com app.example.com A 10.50.0.2 ttl=1 proxied=true prio= data=map[] comment=%q tags=", comment),
					fmt.Sprintf("example.com direct.example.com A 10.50.0.3 ttl=120 proxied=false prio= data=map[] comment=%q tags=", comment),
					`example.com c.example.com A 10.50.0.4 ttl=1 proxied=` + proxied + ` prio= data=map[] comment="team web" tags=`,
					fmt.Sprintf("example.com t.example.com A 10.50.0.5 ttl=1 proxied=%s prio= data=map[] comment=%q tags=env:prod,team:web", proxied, comment),
					fmt.Sprintf("example.com m2.example.com A 10.50.0.6 ttl=600 proxied=false prio= data=map[] comment=%q tags=", comment),
					`example.com reg-a.c.example.com TXT "heritage=external-dns,external-dns/owner=diff,external-dns/resource=service/default/commented" ttl=1 proxied=false prio= data=map[] comment="team web" tags=`,
				} {
					if set == "proxied-commented" && strings.Contains(want, "m2.example.com") {
						want = strings.Replace(want, "ttl=600 proxied=false", "ttl=1 proxied=true", 1)
					}
					if !zk[want] {
						t.Errorf("zonekeeper wrote no %s", want)
					}
				}
				wantLen := 14
				if set == "regional" {
					// Every A name has a regional hostname with the default key.
					for _, n := range []string{"web", "app", "direct", "c", "t", "m1", "m2"} {
						if !zk["example.com regional "+n+".example.com=eu"] {
							t.Errorf("zonekeeper wrote no regional hostname for %s.example.com", n)
						}
					}
					wantLen += 7
				}
				if len(zk) != wantLen {
					t.Fatalf("%d records, want %d: %v", len(zk), wantLen, zk)
				}
				t.Logf("%d records identical; calls: external-dns %v, zonekeeper %v", len(zk), edSrv.Counters().Calls, zkSrv.Counters().Calls)

				// Second runs, each on its own zone, then on the other's: nothing to write.
				for _, run := range []struct {
					who string
					srv *cloudflareemu.Server
					do  func()
				}{
					{"zonekeeper again", zkSrv, func() { runZK(zkURL) }},
					{"external-dns again", edSrv, func() { edLog = runED(edURL) }},
					{"zonekeeper on external-dns's zone", edSrv, func() { zkLog = runZK(edURL) }},
					{"external-dns on zonekeeper's zone", zkSrv, func() { edLog = runED(zkURL) }},
				} {
					run.srv.ClearCalls()
					run.do()
					if n := cloudflareWrites(run.srv); n != 0 {
						t.Errorf("%s: %d writes (%v)\nexternal-dns log:\n%s\nzonekeeper log:\n%s", run.who, n, run.srv.Counters().Calls,
							tail(edLog, 3000), tail(zkLog, 3000))
					}
				}
				if diffs := diffRecordSets(ed, cloudflareRecords(zkSrv)); len(diffs) > 0 {
					t.Errorf("zonekeeper's zone changed:\n%s", strings.Join(diffs, "\n"))
				}
			})
		}
	}
}
