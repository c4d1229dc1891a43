package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/dns/armdns"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/privatedns/armprivatedns"
)

// TestRunServesZonesToTheSDK starts the command with a seed file and zones,
// reads the written CA and azure.json, and logs in and lists zones and
// record sets through azidentity and the ARM clients configured from that
// file the way external-dns configures them (AzureStackCloud endpoints).
// MSAL sends instance discovery to login.microsoftonline.com, so the
// transport routes every host to the emulator, as the CONNECT proxy does.
func TestRunServesZonesToTheSDK(t *testing.T) {
	dir := t.TempDir()
	seed := filepath.Join(dir, "seed.json")
	if err := os.WriteFile(seed, []byte(`{"subscriptions":[{"id":"00000000-0000-0000-0000-000000000001","resourceGroups":[{"name":"emu-rg",
	  "zones":[{"name":"seeded.example","recordSets":[{"name":"www","type":"A","ttl":300,"records":["192.0.2.1"]}]}]}]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	caFile, azureJSON := filepath.Join(dir, "ca.pem"), filepath.Join(dir, "azure.json")
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--seed", seed, "--zone", "example.com", "--private-zone", "internal.example",
			"--write-ca", caFile, "--write-azure-json", azureJSON, "--page-size", "1"}, pw, io.Discard)
	}()
	base, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	base = strings.TrimSpace(base)
	if !strings.HasPrefix(base, "https://127.0.0.1:") || !strings.HasSuffix(base, "/") {
		t.Fatalf("printed %q, want https://127.0.0.1:PORT/", base)
	}
	var cfg struct {
		Cloud, TenantID, SubscriptionID, ResourceGroup, AADClientID, AADClientSecret   string
		ActiveDirectoryAuthorityHost, ResourceManagerEndpoint, ResourceManagerAudience string
	}
	b, err := os.ReadFile(azureJSON)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Cloud != "AzureStackCloud" || cfg.ResourceManagerEndpoint != base || cfg.ActiveDirectoryAuthorityHost != base {
		t.Fatalf("azure.json %s", b)
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatal("no certificate in the written CA file")
	}
	u, _ := url.Parse(base)
	client := &http.Client{Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool},
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, u.Host)
		},
	}}
	cl := cloud.Configuration{ActiveDirectoryAuthorityHost: cfg.ActiveDirectoryAuthorityHost, Services: map[cloud.ServiceName]cloud.ServiceConfiguration{
		cloud.ResourceManager: {Audience: cfg.ResourceManagerAudience, Endpoint: cfg.ResourceManagerEndpoint}}}
	opts := azcore.ClientOptions{Cloud: cl, Transport: client}
	cred, err := azidentity.NewClientSecretCredential(cfg.TenantID, cfg.AADClientID, cfg.AADClientSecret, &azidentity.ClientSecretCredentialOptions{ClientOptions: opts})
	if err != nil {
		t.Fatal(err)
	}
	zc, err := armdns.NewZonesClient(cfg.SubscriptionID, cred, &arm.ClientOptions{ClientOptions: opts})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for p := zc.NewListByResourceGroupPager(cfg.ResourceGroup, nil); p.More(); {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, z := range page.Value {
			names = append(names, *z.Name)
		}
	}
	if strings.Join(names, ",") != "example.com,seeded.example" {
		t.Fatalf("public zones %v", names)
	}
	rc, err := armdns.NewRecordSetsClient(cfg.SubscriptionID, cred, &arm.ClientOptions{ClientOptions: opts})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := rc.Get(ctx, cfg.ResourceGroup, "seeded.example", "www", armdns.RecordTypeA, nil)
	if err != nil || *rs.Properties.ARecords[0].IPv4Address != "192.0.2.1" {
		t.Fatalf("seeded record %+v (%v)", rs, err)
	}
	pc, err := armprivatedns.NewPrivateZonesClient(cfg.SubscriptionID, cred, &arm.ClientOptions{ClientOptions: opts})
	if err != nil {
		t.Fatal(err)
	}
	pz, err := pc.Get(ctx, cfg.ResourceGroup, "internal.example", nil)
	if err != nil || *pz.Name != "internal.example" {
		t.Fatalf("private zone %+v (%v)", pz, err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestRunRefusesBadFlags checks flag combinations that would be ignored are
// refused.
func TestRunRefusesBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--tls-cert", "c.pem"},
		{"--tls-cert", "c.pem", "--tls-key", "k.pem", "--write-ca", "ca.pem"},
		{"--page-size", "0"},
		{"--rate-limit", "-1"},
		{"--zone", "nodots"},
		{"extra"},
	} {
		if err := run(context.Background(), args, io.Discard, io.Discard); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}
