package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/app"
	"github.com/zonekeeper/zonekeeper/internal/cloudflareemu"
	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// TLSA on Cloudflare against the real external-dns v0.23.0 (v0.21 has no TLSA; issue 13): a
// DNSEndpoint with TLSA records (one digest in upper case) beside an A record, each tool against its
// own emulator: the records, their structured data and the ownership TXT records are identical, and
// neither writes on a second run or on the other's zone (each reads the other's TLSA back as equal).
func TestCloudflareTLSAMatchesExternalDNS(t *testing.T) {
	var peer *testbed.ExternalDNSPeer
	for _, p := range testbed.ExternalDNSPeers(t) {
		if p.Version == "v0.23.0" {
			peer = &p
		}
	}
	if peer == nil {
		t.Fatal("external-dns v0.23.0 is not built (hack/testbed.sh)")
	}
	kube := testbed.StartKubeAPIServer(t)
	e := &env{kube: kube, client: kube.Client(t)}
	dyn := e.installCRD(t)
	digest := "54ee30e752c6e751b7bfde666e638ec4e25f3974207258072299caa15e15820f"
	rr := func(name, typ, target string) map[string]any {
		return map[string]any{"dnsName": name, "recordType": typ, "targets": []any{target}, "recordTTL": int64(300)}
	}
	obj := dnsEndpointObject("tlsa",
		rr("tls.example.com", "A", "192.0.2.10"),
		rr("_443._tcp.tls.example.com", "TLSA", "3 1 1 "+digest),
		rr("_25._tcp.mail.example.com", "TLSA", "2 0 1 "+strings.ToUpper(digest)),
	)
	if _, err := dyn.Resource(source.DNSEndpointResource()).Namespace("default").Create(context.Background(), obj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--provider=cloudflare", "--source=crd", "--registry=txt", "--txt-owner-id=diff", "--policy=sync",
		"--domain-filter=example.com", "--managed-record-types=A", "--managed-record-types=TLSA", "--kubeconfig=" + kube.Kubeconfig}
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
		return log.String()
	}
	edLog, zkLog := runED(edURL), runZK(zkURL)
	ed, zk := cloudflareRecords(edSrv), cloudflareRecords(zkSrv)
	if diffs := diffRecordSets(ed, zk); len(diffs) > 0 {
		t.Fatalf("%d records differ:\n%s\nexternal-dns log:\n%s\nzonekeeper log:\n%s", len(diffs), strings.Join(diffs, "\n"), tail(edLog, 4000), tail(zkLog, 3000))
	}
	tlsa := 0
	for r := range zk {
		if strings.Contains(r, " TLSA ") {
			tlsa++
		}
	}
	if tlsa != 2 || len(zk) != 6 {
		t.Fatalf("want 3 records and 3 TXT, 2 of them TLSA: %v", zk)
	}
	t.Logf("%d records identical: %v", len(zk), zk)
	for _, run := range []struct {
		who string
		srv *cloudflareemu.Server
		do  func()
	}{
		{"zonekeeper again", zkSrv, func() { zkLog = runZK(zkURL) }},
		{"external-dns again", edSrv, func() { edLog = runED(edURL) }},
		{"zonekeeper on external-dns's zone", edSrv, func() { zkLog = runZK(edURL) }},
		{"external-dns on zonekeeper's zone", zkSrv, func() { edLog = runED(zkURL) }},
	} {
		run.srv.ClearCalls()
		run.do()
		if n := cloudflareWrites(run.srv); n != 0 {
			t.Errorf("%s: %d writes (%v)\nexternal-dns log:\n%s\nzonekeeper log:\n%s", run.who, n, run.srv.Counters().Calls, tail(edLog, 3000), tail(zkLog, 3000))
		}
	}
}
