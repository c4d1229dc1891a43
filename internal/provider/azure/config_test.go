package azure

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
)

func writeFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "azure.json")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLoadConfigOverridesAndRefusals checks the flags that replace azure.json keys, that keys
// external-dns does not read are ignored (an AKS node's azure.json has dozens), and that a missing
// subscription or resource group is refused naming the flag that can set it.
func TestLoadConfigOverridesAndRefusals(t *testing.T) {
	p := writeFile(t, `{"tenantId":"t","subscriptionId":"s-file","resourceGroup":"rg-file","aadClientId":"c","aadClientSecret":"x",
	  "vmType":"vmss","loadBalancerSku":"standard","userAssignedIdentityID":"u-file"}`)
	c, err := LoadConfig(p, Overrides{})
	if err != nil || c.SubscriptionID != "s-file" || c.ResourceGroup != "rg-file" || c.UserAssignedIdentityID != "u-file" {
		t.Fatalf("%+v (%v)", c, err)
	}
	c, err = LoadConfig(p, Overrides{SubscriptionID: "s-flag", ResourceGroup: "rg-flag", UserAssignedIdentityClientID: "u-flag"})
	if err != nil || c.SubscriptionID != "s-flag" || c.ResourceGroup != "rg-flag" || c.UserAssignedIdentityID != "u-flag" {
		t.Fatalf("overrides: %+v (%v)", c, err)
	}
	for body, want := range map[string]string{
		`{"resourceGroup":"rg"}`: "--azure-subscription-id",
		`{"subscriptionId":"s"}`: "--azure-resource-group",
		`{"subscriptionId":`:     "not the JSON azure.json",
	} {
		if _, err := LoadConfig(writeFile(t, body), Overrides{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error naming %s", body, err, want)
		}
	}
	if _, err := LoadConfig(filepath.Join(t.TempDir(), "none.json"), Overrides{}); err == nil || !strings.Contains(err.Error(), "--azure-config-file") {
		t.Errorf("missing file: %v", err)
	}
}

// TestCloudConfiguration checks external-dns's cloud names (any case) and that AzureStackCloud
// needs its three endpoints.
func TestCloudConfiguration(t *testing.T) {
	for name, want := range map[string]cloud.Configuration{"": cloud.AzurePublic, "AzurePublicCloud": cloud.AzurePublic, "azurecloud": cloud.AzurePublic,
		"AzureChinaCloud": cloud.AzureChina, "AzureUSGovernmentCloud": cloud.AzureGovernment, "AZUREUSGOVERNMENT": cloud.AzureGovernment} {
		got, err := FileConfig{Cloud: name}.CloudConfiguration()
		if err != nil || got.ActiveDirectoryAuthorityHost != want.ActiveDirectoryAuthorityHost {
			t.Errorf("%q: %+v (%v)", name, got, err)
		}
	}
	stack := FileConfig{Cloud: "AzureStackCloud", ActiveDirectoryAuthorityHost: "https://login.stack/", ResourceManagerEndpoint: "https://arm.stack/", ResourceManagerAudience: "https://arm.stack/"}
	got, err := stack.CloudConfiguration()
	if err != nil || got.Services[cloud.ResourceManager].Endpoint != "https://arm.stack/" {
		t.Fatalf("stack: %+v (%v)", got, err)
	}
	stack.ResourceManagerAudience = ""
	if _, err := stack.CloudConfiguration(); err == nil || !strings.Contains(err.Error(), "resourceManagerAudience") {
		t.Errorf("stack without audience: %v", err)
	}
	if _, err := (FileConfig{Cloud: "Mars"}).CloudConfiguration(); err == nil || !strings.Contains(err.Error(), `"Mars"`) {
		t.Errorf("unknown cloud: %v", err)
	}
}

// TestCredentialChoice checks the order external-dns picks a login in: a client secret unless
// either value is "msi", then workload identity, then managed identity.
func TestCredentialChoice(t *testing.T) {
	t.Setenv("AZURE_FEDERATED_TOKEN_FILE", writeFile(t, "token"))
	for _, c := range []struct {
		cfg  FileConfig
		want string
	}{
		{FileConfig{TenantID: "t", ClientID: "c", ClientSecret: "s", UseManagedIdentityExtension: true}, "client secret"},
		{FileConfig{TenantID: "t", ClientID: "msi", ClientSecret: "msi", UseManagedIdentityExtension: true}, "managed identity"},
		{FileConfig{TenantID: "t", ClientID: "c", UseWorkloadIdentityExtension: true, UseManagedIdentityExtension: true}, "workload identity"},
		{FileConfig{UseManagedIdentityExtension: true, UserAssignedIdentityID: "u"}, "managed identity"},
	} {
		_, got, err := c.cfg.Credential(azcore.ClientOptions{})
		if err != nil || got != c.want {
			t.Errorf("%+v: %s (%v), want %s", c.cfg, got, err, c.want)
		}
	}
	if _, _, err := (FileConfig{ClientID: "c", ClientSecret: "s"}).Credential(azcore.ClientOptions{}); err == nil || !strings.Contains(err.Error(), "tenantId") {
		t.Errorf("client secret without tenant: %v", err)
	}
	if _, _, err := (FileConfig{}).Credential(azcore.ClientOptions{}); err == nil || !strings.Contains(err.Error(), "no credentials") {
		t.Errorf("no credentials: %v", err)
	}
}
