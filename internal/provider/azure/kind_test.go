package azure_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/config"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// The flags are external-dns's, with its defaults, shared by --provider=azure and
// --provider=azure-private-dns, read from the command line and the EXTERNAL_DNS_* environment;
// values out of range are refused naming the flag.
func TestAzureFlags(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, name := range []string{"azure", "azure-private-dns"} {
		base := []string{"--source=service", "--provider=" + name}
		cfg, _, err := config.Parse("z", append(base, "--azure-config-file=/x/azure.json", "--azure-resource-group=rg",
			"--azure-subscription-id=sub", "--azure-user-assigned-identity-client-id=uid", "--azure-maxretries-count=5"),
			env(map[string]string{"EXTERNAL_DNS_AZURE_ZONES_CACHE_DURATION": "3m"}), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		f := cfg.AzureFlags
		if f.AzureConfigFile != "/x/azure.json" || f.AzureResourceGroup != "rg" || f.AzureSubscriptionID != "sub" ||
			f.AzureUserAssignedIdentityClientID != "uid" || f.AzureMaxRetriesCount != 5 || f.AzureZonesCacheDuration != 3*time.Minute {
			t.Errorf("%s: parsed %+v", name, f)
		}
		cfg, _, err = config.Parse("z", base, env(nil), io.Discard)
		if err != nil || cfg.AzureConfigFile != "/etc/kubernetes/azure.json" || cfg.AzureMaxRetriesCount != 3 || cfg.AzureZonesCacheDuration != 0 {
			t.Errorf("%s: defaults %+v %v", name, cfg.AzureFlags, err)
		}
		for arg, want := range map[string]string{
			"--azure-maxretries-count=-1":      "--azure-maxretries-count=-1: must not be negative",
			"--azure-zones-cache-duration=-1s": "--azure-zones-cache-duration: must not be negative",
			"--azure-config-file=":             "--azure-config-file: must name",
		} {
			if _, _, err := config.Parse("z", append(base, arg), env(nil), io.Discard); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s %s: %v, want %q", name, arg, err, want)
			}
		}
	}
}

// The kind's constructor reads azure.json with the overrides, takes --zone-id-filter (TestZoneIDFilter)
// and names the provider in its errors; a valid file gives a provider of the
// selected API without calling Azure.
func TestAzureKindStart(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "azure.json")
	if err := os.WriteFile(file, []byte(`{"tenantId":"t","aadClientId":"c","aadClientSecret":"s","subscriptionId":"sub"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	parse := func(args ...string) config.Config {
		cfg, _, err := config.Parse("z", append([]string{"--source=service"}, args...), func(string) string { return "" }, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	ctx := context.Background()
	cfg := parse("--provider=azure-private-dns", "--azure-config-file="+file)
	k, _ := cfg.ProviderKind()
	if _, err := k.New(ctx, provider.Env{}); err == nil || !strings.Contains(err.Error(), "--provider=azure-private-dns") || !strings.Contains(err.Error(), "--azure-resource-group") {
		t.Fatalf("no resource group: %v", err)
	}
	cfg = parse("--provider=azure-private-dns", "--azure-config-file="+file, "--azure-resource-group=rg")
	k, _ = cfg.ProviderKind()
	if _, err := k.New(ctx, provider.Env{ZoneIDFilter: []string{"/subscriptions/sub/x"}}); err != nil {
		t.Fatalf("zone id filter: %v", err)
	}
	mk, err := k.New(ctx, provider.Env{DomainFilter: []string{"example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := mk(provider.View{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.Capabilities().RecordTypes, ","); got != "A,AAAA,CNAME,MX,TXT" {
		t.Fatalf("private DNS record types %s", got)
	}
	cfg = parse("--provider=azure", "--azure-config-file="+filepath.Join(dir, "missing.json"))
	k, _ = cfg.ProviderKind()
	if _, err := k.New(ctx, provider.Env{}); err == nil || !strings.Contains(err.Error(), "--azure-config-file") {
		t.Fatalf("missing file: %v", err)
	}
}
