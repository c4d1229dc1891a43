package azure

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/azurednsemu"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// TestAutoRegisteredRecordsAreLeftAlone lists a private zone holding a set a VNet link registered
// and checks that a change to it is refused by the provider without a call to Azure, while the
// other changes apply.
func TestAutoRegisteredRecordsAreLeftAlone(t *testing.T) {
	emu, client, path := emulator(t, azurednsemu.Options{})
	if err := emu.Seed(azurednsemu.Seed{Subscriptions: []azurednsemu.SeedSubscription{{ID: testSub, ResourceGroups: []azurednsemu.SeedResourceGroup{{Name: testRG,
		PrivateZones: []azurednsemu.SeedZone{{Name: "internal.example", RecordSets: []azurednsemu.SeedRecordSet{
			{Name: "vm1", Type: "A", TTL: 10, Records: []string{"10.0.0.4"}, AutoRegistered: true}}}}}}}}}); err != nil {
		t.Fatal(err)
	}
	p := newTestProvider(t, client, path, Config{Private: true})
	ctx := context.Background()
	recs, err := p.Records(ctx)
	if err != nil || len(recs) != 1 || recs[0].DNSName != "vm1.internal.example" {
		t.Fatalf("records %v (%v)", recs, err)
	}
	emu.ClearCalls()
	vm := endpoint.NewWithTTL("vm1.internal.example", "A", 10, "10.0.0.4")
	other := endpoint.NewWithTTL("app.internal.example", "A", 60, "10.0.0.9")
	err = p.ApplyChanges(ctx, &plan.Changes{Delete: []*endpoint.Endpoint{vm}, Create: []*endpoint.Endpoint{other}})
	ae, ok := provider.AsApplyError(err)
	if !ok || len(ae.Rejected) != 1 || ae.Rejected[0].Endpoint != vm || !strings.Contains(ae.Rejected[0].Err.Error(), "virtual network link") {
		t.Fatalf("apply: %v", err)
	}
	c := emu.Counters()
	if c.Calls[azurednsemu.OpPrivateRecordSetsDelete] != 0 || c.Calls[azurednsemu.OpPrivateRecordSetsCreateOrUpdate] != 1 {
		t.Fatalf("calls %v: want no delete and one write", c.Calls)
	}
}

// TestZonesCacheDuration counts zone listings with --azure-zones-cache-duration unset (every call
// lists, external-dns's default) and set (the list is reused until it expires).
func TestZonesCacheDuration(t *testing.T) {
	emu, client, path := emulator(t, azurednsemu.Options{})
	if err := emu.AddZone(false, testSub, testRG, "example.com"); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		cache time.Duration
		want  int
	}{{0, 3}, {time.Minute, 2}} {
		emu.ClearCalls()
		p := newTestProvider(t, client, path, Config{ZonesCacheDuration: c.cache, Now: func() time.Time { return now }})
		for i := range 3 {
			if i == 2 {
				now = now.Add(2 * time.Minute)
			}
			if _, err := p.Records(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		if got := emu.Counters().Calls[azurednsemu.OpZonesListByResourceGroup]; got != c.want {
			t.Errorf("cache %v: %d zone listings for three Records calls, want %d", c.cache, got, c.want)
		}
	}
}

// TestMaxRetries checks --azure-maxretries-count reaches azcore: with 2 retries two 429s are waited
// out; with 0 the first one fails the listing.
func TestMaxRetries(t *testing.T) {
	emu, client, path := emulator(t, azurednsemu.Options{})
	if err := emu.AddZone(false, testSub, testRG, "example.com"); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p := newTestProvider(t, client, path, Config{MaxRetries: 2})
	if _, err := p.Records(ctx); err != nil { // log in first
		t.Fatal(err)
	}
	if err := emu.AddFault(azurednsemu.Fault{Operation: azurednsemu.OpRecordSetsListAllByDNSZone, Status: 429, Count: 2, RetryAfter: 1}); err != nil {
		t.Fatal(err)
	}
	p.Invalidate() // the record sets are cached: list them again
	if _, err := p.Records(ctx); err != nil {
		t.Fatalf("two 429s with two retries: %v", err)
	}
	none := newTestProvider(t, client, path, Config{MaxRetries: 0})
	if _, err := none.Records(ctx); err != nil {
		t.Fatal(err)
	}
	if err := emu.AddFault(azurednsemu.Fault{Operation: azurednsemu.OpRecordSetsListAllByDNSZone, Status: 429, Count: 1, RetryAfter: 1}); err != nil {
		t.Fatal(err)
	}
	none.Invalidate()
	if _, err := none.Records(ctx); err == nil || !strings.Contains(err.Error(), "429") {
		t.Fatalf("a 429 without retries: %v", err)
	}
	if _, err := New(Config{MaxRetries: -1}); err == nil || !strings.Contains(err.Error(), "--azure-maxretries-count") {
		t.Fatalf("negative retries: %v", err)
	}
}

// TestAzureStackCloudWithCAFile logs in and lists with nothing but the AzureStackCloud azure.json
// and the emulator's CA as --tls-ca: no proxy and no custom transport. This works because instance
// discovery is off for AzureStackCloud; with it on, MSAL would ask login.microsoftonline.com.
func TestAzureStackCloudWithCAFile(t *testing.T) {
	ca, err := azurednsemu.NewTestCA(azurednsemu.DefaultTLSHosts...)
	if err != nil {
		t.Fatal(err)
	}
	emu := azurednsemu.New(azurednsemu.Options{Credentials: []azurednsemu.Credential{{TenantID: "t", ClientID: "c", ClientSecret: "s"}}})
	if err := emu.AddZone(false, testSub, testRG, "example.com"); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(emu)
	ts.TLS = ca.ServerTLS()
	ts.StartTLS()
	defer ts.Close()
	dir := t.TempDir()
	caFile, cfgFile := filepath.Join(dir, "ca.pem"), filepath.Join(dir, "azure.json")
	if err := os.WriteFile(caFile, ca.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]string{"cloud": "AzureStackCloud", "tenantId": "t", "subscriptionId": testSub, "resourceGroup": testRG,
		"aadClientId": "c", "aadClientSecret": "s", "activeDirectoryAuthorityHost": ts.URL + "/", "resourceManagerEndpoint": ts.URL + "/",
		"resourceManagerAudience": "https://management.core.windows.net/"})
	if err := os.WriteFile(cfgFile, b, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := LoadConfig(cfgFile, Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(Config{File: f, CAFile: caFile})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.ApplyChanges(context.Background(), &plan.Changes{Create: []*endpoint.Endpoint{endpoint.NewWithTTL("www.example.com", "A", 60, "192.0.2.1")}}); err != nil {
		t.Fatal(err)
	}
	c := emu.Counters()
	if c.Calls[azurednsemu.OpAADInstanceDiscovery] != 0 || c.Calls[azurednsemu.OpAADToken] != 1 || c.Calls[azurednsemu.OpRecordSetsCreateOrUpdate] != 1 {
		t.Fatalf("calls %v: want a login without instance discovery and one write", c.Calls)
	}
	if _, err := New(Config{File: f, CAFile: cfgFile}); err == nil || !strings.Contains(err.Error(), "--tls-ca") {
		t.Fatalf("a CA file without a certificate: %v", err)
	}
}

// TestZoneIDFilter: --zone-id-filter keeps the zones whose ARM resource id ends with one of its values,
// as external-dns matches it (the full id, or its tail); the other zone's records are not listed.
func TestZoneIDFilter(t *testing.T) {
	emu, client, path := emulator(t, azurednsemu.Options{})
	for _, z := range []string{"example.com", "example.org"} {
		if err := emu.AddZone(false, testSub, testRG, z); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		filter []string
		want   string
	}{
		{nil, "example.com,example.org"},
		{[]string{""}, "example.com,example.org"},
		{[]string{"/dnszones/example.org"}, "example.org"},
		{[]string{"/subscriptions/" + testSub + "/resourceGroups/" + testRG + "/providers/Microsoft.Network/dnszones/example.com"}, "example.com"},
		{[]string{"/dnszones/example.net"}, ""},
	} {
		p := newTestProvider(t, client, path, Config{ZoneIDFilter: c.filter})
		zones, err := p.zones(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, z := range zones {
			names = append(names, z.name)
		}
		if got := strings.Join(names, ","); got != c.want {
			t.Errorf("--zone-id-filter=%q: zones %q, want %q", c.filter, got, c.want)
		}
	}
}
