package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/app"
	"github.com/zonekeeper/zonekeeper/internal/azurednsemu"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
	"github.com/zonekeeper/zonekeeper/internal/testbed/emuproxy"
)

const (
	azureDiffSub = "00000000-0000-0000-0000-0000000000d1"
	azureDiffRG  = "rg-diff"
)

// azureDiffEmulator is one Azure DNS emulator holding example.com (public or private), served over
// TLS with the test CA at 127.0.0.1 and, through its own CONNECT proxy, as login.microsoftonline.com
// (where external-dns's MSAL sends instance discovery), with an AzureStackCloud azure.json that points
// at it. Both tools read the same kind of file: zonekeeper with --tls-ca, external-dns with
// SSL_CERT_FILE and HTTPS_PROXY.
type azureDiffEmulator struct {
	srv     *azurednsemu.Server
	proxy   *emuproxy.Proxy
	cfgFile string
	caFile  string
}

func newAzureDiffEmulator(t *testing.T, ca *emuproxy.CA, private bool, pageSize int) *azureDiffEmulator {
	t.Helper()
	srv := azurednsemu.New(azurednsemu.Options{PageSize: pageSize, Credentials: []azurednsemu.Credential{{TenantID: "diff-tenant", ClientID: "diff-client", ClientSecret: "diff-secret"}}})
	if err := srv.AddZone(private, azureDiffSub, azureDiffRG, "example.com"); err != nil {
		t.Fatal(err)
	}
	proxy, err := emuproxy.NewProxy(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = proxy.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	addr, err := proxy.Serve(ctx, ca, srv, emuproxy.AzureLoginHost, emuproxy.AzureARMHost)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	e := &azureDiffEmulator{srv: srv, proxy: proxy, cfgFile: filepath.Join(dir, "azure.json"), caFile: filepath.Join(dir, "ca.pem")}
	base := "https://" + addr + "/"
	b, _ := json.Marshal(map[string]string{"cloud": "AzureStackCloud", "tenantId": "diff-tenant", "subscriptionId": azureDiffSub,
		"resourceGroup": azureDiffRG, "aadClientId": "diff-client", "aadClientSecret": "diff-secret",
		"activeDirectoryAuthorityHost": base, "resourceManagerEndpoint": base, "resourceManagerAudience": "https://management.core.windows.net/"})
	if err := os.WriteFile(e.cfgFile, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := ca.WriteFile(e.caFile); err != nil {
		t.Fatal(err)
	}
	return e
}

// records renders every record set, etags left out, one line each: zone, name, type, TTL, data.
func (e *azureDiffEmulator) records() map[string]bool {
	out := map[string]bool{}
	for _, z := range azurednsemu.WithoutETags(e.srv.Dump()) {
		for _, rs := range z.RecordSets {
			out[fmt.Sprintf("%s %s %s ttl=%d %s", z.Name, rs.Name, rs.Type, rs.TTL, strings.Join(rs.Records, " | "))] = true
		}
	}
	return out
}

// writes counts the calls that change records.
func (e *azureDiffEmulator) writes() int {
	c := e.srv.Counters().Calls
	return c[azurednsemu.OpRecordSetsCreateOrUpdate] + c[azurednsemu.OpRecordSetsDelete] +
		c[azurednsemu.OpPrivateRecordSetsCreateOrUpdate] + c[azurednsemu.OpPrivateRecordSetsDelete]
}

// TestAzureMatchesExternalDNS runs every built external-dns version and zonekeeper once each with
// the same flags and the same kind of azure.json over the same Services, each against its own
// emulator, for --provider=azure and --provider=azure-private-dns; always the TXT registry with a
// prefix. The record sets must be identical, a second run of each must write nothing, and each must
// adopt the other's zone without a write.
func TestAzureMatchesExternalDNS(t *testing.T) {
	peers := testbed.ExternalDNSPeers(t)
	kube := testbed.StartKubeAPIServer(t)
	e := &env{kube: kube, client: kube.Client(t)}
	for _, s := range []struct {
		name, ip string
		kv       []string
	}{
		{"web", "10.61.0.1", []string{"hostname", "web.example.com"}},
		{"ttl", "10.61.0.2", []string{"hostname", "ttl.example.com", "ttl", "120"}},
		{"multi", "10.61.0.3", []string{"hostname", "m1.example.com,m2.example.com", "ttl", "600"}},
		{"outside", "10.61.0.6", []string{"hostname", "www.example.org"}},
	} {
		e.createService(t, annotated(loadBalancer(s.name, "default", nil), s.kv...), s.ip)
	}
	ca, err := emuproxy.NewCA()
	if err != nil {
		t.Fatal(err)
	}
	for _, peer := range peers {
		for _, prov := range []string{"azure", "azure-private-dns"} {
			t.Run(peer.Version+"/"+prov, func(t *testing.T) {
				private := prov == "azure-private-dns"
				// Pages of 5, so that both tools follow nextLink.
				ed, zk := newAzureDiffEmulator(t, ca, private, 5), newAzureDiffEmulator(t, ca, private, 5)
				flags := func(emu *azureDiffEmulator) []string {
					return []string{"--provider=" + prov, "--azure-config-file=" + emu.cfgFile, "--source=service", "--registry=txt",
						"--txt-owner-id=diff", "--txt-prefix=reg-%{record_type}.", "--policy=sync", "--domain-filter=example.com",
						"--kubeconfig=" + kube.Kubeconfig, "--once"}
				}
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
				defer cancel()
				runED := func(emu *azureDiffEmulator) string {
					cmd := exec.CommandContext(ctx, peer.Binary, append(append(flags(emu), peer.Args...), "--log-level=debug",
						fmt.Sprintf("--metrics-address=127.0.0.1:%d", testbed.FreePort(t)))...)
					cmd.Env = append(withoutProxyEnv(os.Environ()), "HTTPS_PROXY="+emu.proxy.URL(), "SSL_CERT_FILE="+emu.caFile)
					out, err := cmd.CombinedOutput()
					if err != nil {
						t.Fatalf("external-dns %s: %v\n%s", peer.Version, err, tail(string(out), 6000))
					}
					return string(out)
				}
				runZK := func(emu *azureDiffEmulator) string {
					var log bytes.Buffer
					if code := app.Main(ctx, append(flags(emu), "--tls-ca="+emu.caFile), &bytes.Buffer{}, &log, os.Getenv); code != 0 {
						t.Fatalf("zonekeeper exited %d:\n%s", code, tail(log.String(), 6000))
					}
					if strings.Contains(log.String(), "diff-secret") {
						t.Error("the client secret appears in zonekeeper's log")
					}
					return log.String()
				}
				edLog := runED(ed)
				zkLog := runZK(zk)
				edCalls, zkCalls := ed.srv.Counters(), zk.srv.Counters()
				edRecs, zkRecs := ed.records(), zk.records()
				if diffs := diffRecordSets(edRecs, zkRecs); len(diffs) > 0 {
					t.Fatalf("%d record sets differ (%d from external-dns, %d from zonekeeper):\n%s\nexternal-dns log:\n%s\nzonekeeper log:\n%s",
						len(diffs), len(edRecs), len(zkRecs), strings.Join(diffs, "\n"), tail(edLog, 4000), tail(zkLog, 3000))
				}
				want := "example.com web A ttl=300 10.61.0.1"
				if !zkRecs[want] || !zkRecs["example.com m2 A ttl=600 10.61.0.3"] || !zkRecs["example.com ttl A ttl=120 10.61.0.2"] {
					t.Fatalf("zonekeeper did not write the services' records: %v", zkRecs)
				}
				// Intended difference (docs/migration.md): zonekeeper's AzureStackCloud login skips instance
				// discovery, which external-dns sends to login.microsoftonline.com (here: the proxy).
				if zkCalls.Calls[azurednsemu.OpAADInstanceDiscovery] != 0 || edCalls.Calls[azurednsemu.OpAADInstanceDiscovery] == 0 ||
					ed.proxy.Tunnels()[emuproxy.AzureLoginHost+":443"] == 0 {
					t.Errorf("instance discovery: zonekeeper %d calls, external-dns %d calls and %v tunnels; want none from zonekeeper only",
						zkCalls.Calls[azurednsemu.OpAADInstanceDiscovery], edCalls.Calls[azurednsemu.OpAADInstanceDiscovery], ed.proxy.Tunnels())
				}
				t.Logf("%d record sets identical; calls: external-dns %v (total %d), zonekeeper %v (total %d)",
					len(zkRecs), edCalls.Calls, edCalls.Total, zkCalls.Calls, zkCalls.Total)
				for _, run := range []struct {
					who string
					emu *azureDiffEmulator
					do  func()
				}{
					{"zonekeeper again", zk, func() { zkLog = runZK(zk) }},
					{"external-dns again", ed, func() { edLog = runED(ed) }},
					{"zonekeeper on external-dns's zone", ed, func() { zkLog = runZK(ed) }},
					{"external-dns on zonekeeper's zone", zk, func() { edLog = runED(zk) }},
				} {
					run.emu.srv.ClearCalls()
					run.do()
					if n := run.emu.writes(); n != 0 {
						t.Errorf("%s: %d writes (%v)\nexternal-dns log:\n%s\nzonekeeper log:\n%s", run.who, n, run.emu.srv.Counters().Calls,
							tail(edLog, 3000), tail(zkLog, 3000))
					}
					t.Logf("%s: calls %v", run.who, run.emu.srv.Counters().Calls)
				}
			})
		}
	}
}
