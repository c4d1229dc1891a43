package azurednsemu

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/dns/armdns"

	"github.com/zonekeeper/zonekeeper/internal/testbed"
	"github.com/zonekeeper/zonekeeper/internal/testbed/emuproxy"
)

// proxied serves the emulator behind the shared CONNECT proxy under management.azure.com and
// login.microsoftonline.com, with the shared test CA.
func proxied(t *testing.T, emu *Server) (*emuproxy.CA, *emuproxy.Proxy, string) {
	t.Helper()
	ca, err := emuproxy.NewCA()
	if err != nil {
		t.Fatal(err)
	}
	proxy, err := emuproxy.NewProxy(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = proxy.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	addr, err := proxy.Serve(ctx, ca, emu, emuproxy.AzureARMHost, emuproxy.AzureLoginHost)
	if err != nil {
		t.Fatal(err)
	}
	return ca, proxy, addr
}

// TestUnmodifiedSDKThroughTheProxy logs in and writes with the SDKs' defaults (the public cloud:
// login.microsoftonline.com and management.azure.com), reaching the emulator only through the
// proxy and trusting only the test CA: the zero-configuration route for any unmodified client.
func TestUnmodifiedSDKThroughTheProxy(t *testing.T) {
	emu := New(Options{Credentials: []Credential{{TenantID: testTenant, ClientID: testClient, ClientSecret: testSecret}}})
	seedExample(t, emu)
	ca, proxy, _ := proxied(t, emu)
	opts := azcore.ClientOptions{Transport: &http.Client{Transport: proxy.Transport(ca)}}
	cred, err := azidentity.NewClientSecretCredential(testTenant, testClient, testSecret, &azidentity.ClientSecretCredentialOptions{ClientOptions: opts})
	if err != nil {
		t.Fatal(err)
	}
	rc, err := armdns.NewRecordSetsClient(testSub, cred, &arm.ClientOptions{ClientOptions: opts})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rc.CreateOrUpdate(context.Background(), testRG, "example.com", "www", armdns.RecordTypeA, aSet("192.0.2.1"), nil); err != nil {
		t.Fatal(err)
	}
	tun := proxy.Tunnels()
	if tun[emuproxy.AzureARMHost+":443"]+tun[emuproxy.AzureARMHost] == 0 || tun[emuproxy.AzureLoginHost+":443"]+tun[emuproxy.AzureLoginHost] == 0 {
		t.Fatalf("tunnels %v: want both hosts through the proxy", tun)
	}
}

// TestRealExternalDNSWritesThroughTheEmulator runs the real external-dns (v0.21.0 and v0.23.0, from
// the testbed) once with its fake source (ten A records under example.com) and --provider=azure or
// --provider=azure-private-dns, configured by an AzureStackCloud azure.json pointing at the
// emulator, with SSL_CERT_FILE for the test CA and HTTPS_PROXY for login.microsoftonline.com (MSAL's
// instance discovery). The records and their TXT ownership records must land in the emulator.
func TestRealExternalDNSWritesThroughTheEmulator(t *testing.T) {
	for _, c := range []struct{ version, provider string }{
		{"v0.21.0", "azure"}, {"v0.23.0", "azure"}, {"v0.23.0", "azure-private-dns"},
	} {
		t.Run(c.version+"/"+c.provider, func(t *testing.T) {
			bin := testbed.Binary(t, "external-dns-"+c.version)
			emu := New(Options{PageSize: 3, Credentials: []Credential{{TenantID: testTenant, ClientID: testClient, ClientSecret: testSecret}}})
			if err := emu.AddZone(c.provider == "azure-private-dns", testSub, testRG, "example.com"); err != nil {
				t.Fatal(err)
			}
			ca, proxy, addr := proxied(t, emu)
			dir := t.TempDir()
			caFile, cfgFile := filepath.Join(dir, "ca.pem"), filepath.Join(dir, "azure.json")
			if err := ca.WriteFile(caFile); err != nil {
				t.Fatal(err)
			}
			base := "https://" + addr + "/"
			b, _ := json.Marshal(map[string]string{"cloud": "AzureStackCloud", "tenantId": testTenant, "subscriptionId": testSub,
				"resourceGroup": testRG, "aadClientId": testClient, "aadClientSecret": testSecret,
				"activeDirectoryAuthorityHost": base, "resourceManagerEndpoint": base, "resourceManagerAudience": "https://management.core.windows.net/"})
			if err := os.WriteFile(cfgFile, b, 0o600); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, "--once", "--source=fake", "--provider="+c.provider, "--azure-config-file="+cfgFile,
				"--txt-owner-id=emu", "--domain-filter=example.com", "--policy=sync", "--log-level=debug")
			cmd.Env = append(os.Environ(), "SSL_CERT_FILE="+caFile, "HTTPS_PROXY="+proxy.URL(), "NO_PROXY=", "KUBECONFIG=/nonexistent")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("external-dns %s: %v\n%s", c.version, err, tail(out))
			}
			// Every record set external-dns says it wrote is in the emulator, and nothing failed.
			have := map[string]bool{}
			for _, z := range emu.Dump() {
				for _, r := range z.RecordSets {
					have[r.Type+" "+r.Name] = true
				}
			}
			wrote := regexp.MustCompile(`Updating (\w+) record named '([^']+)'`).FindAllStringSubmatch(string(out), -1)
			txt := 0
			for _, m := range wrote {
				if !have[m[1]+" "+m[2]] {
					t.Errorf("external-dns wrote %s %s, which the emulator does not hold", m[1], m[2])
				}
				if m[1] == "TXT" {
					txt++
				}
			}
			cn := emu.Counters()
			t.Logf("%s %s: wrote %d record sets (%d TXT); calls %v", c.version, c.provider, len(wrote), txt, cn.Calls)
			if len(wrote) < 2 || txt*2 != len(wrote) || strings.Contains(string(out), "level=error") {
				t.Fatalf("want records with their TXT ownership records and no error\n%s", tail(out))
			}
			if cn.Calls[OpAADToken] != 1 || cn.Calls[OpAADInstanceDiscovery] == 0 {
				t.Fatalf("login calls %v", cn.Calls)
			}
		})
	}
}

func tail(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 40 {
		lines = lines[len(lines)-40:]
	}
	for i, l := range lines {
		if len(l) > 300 {
			lines[i] = l[:300] + "…"
		}
	}
	return strings.Join(lines, "\n")
}
