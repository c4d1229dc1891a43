package azure

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
)

// FileConfig is the azure.json file external-dns reads (--azure-config-file), with the keys it reads.
// Other keys are ignored, as external-dns ignores them: the file is often the cloud provider's
// /etc/kubernetes/azure.json, which has many more.
type FileConfig struct {
	Cloud                        string `json:"cloud"`
	TenantID                     string `json:"tenantId"`
	SubscriptionID               string `json:"subscriptionId"`
	ResourceGroup                string `json:"resourceGroup"`
	Location                     string `json:"location"`
	ClientID                     string `json:"aadClientId"`
	ClientSecret                 string `json:"aadClientSecret"`
	UseManagedIdentityExtension  bool   `json:"useManagedIdentityExtension"`
	UseWorkloadIdentityExtension bool   `json:"useWorkloadIdentityExtension"`
	UserAssignedIdentityID       string `json:"userAssignedIdentityID"`
	ActiveDirectoryAuthorityHost string `json:"activeDirectoryAuthorityHost"`
	ResourceManagerAudience      string `json:"resourceManagerAudience"`
	ResourceManagerEndpoint      string `json:"resourceManagerEndpoint"`
}

// Overrides are the flags that replace azure.json keys when set, as in external-dns:
// --azure-subscription-id, --azure-resource-group, --azure-user-assigned-identity-client-id.
type Overrides struct {
	SubscriptionID, ResourceGroup, UserAssignedIdentityClientID string
}

// LoadConfig reads azure.json and applies the overrides. It checks what a provider needs: a
// subscription and a resource group (external-dns lists zones of one resource group).
func LoadConfig(path string, o Overrides) (FileConfig, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return FileConfig{}, fmt.Errorf("--azure-config-file: %w", err)
	}
	var c FileConfig
	if err := json.Unmarshal(b, &c); err != nil {
		return FileConfig{}, fmt.Errorf("--azure-config-file %s: not the JSON azure.json external-dns reads: %w", path, err)
	}
	if o.SubscriptionID != "" {
		c.SubscriptionID = o.SubscriptionID
	}
	if o.ResourceGroup != "" {
		c.ResourceGroup = o.ResourceGroup
	}
	if o.UserAssignedIdentityClientID != "" {
		c.UserAssignedIdentityID = o.UserAssignedIdentityClientID
	}
	if c.SubscriptionID == "" {
		return FileConfig{}, fmt.Errorf("--azure-config-file %s: no subscriptionId (set it there or with --azure-subscription-id)", path)
	}
	if c.ResourceGroup == "" {
		return FileConfig{}, fmt.Errorf("--azure-config-file %s: no resourceGroup (set it there or with --azure-resource-group)", path)
	}
	return c, nil
}

// CloudConfiguration is the Azure cloud the "cloud" key names (external-dns's names, without case);
// AzureStackCloud takes its endpoints from the file, and each must be set.
func (c FileConfig) CloudConfiguration() (cloud.Configuration, error) {
	switch strings.ToUpper(c.Cloud) {
	case "", "AZURECLOUD", "AZUREPUBLICCLOUD":
		return cloud.AzurePublic, nil
	case "AZUREUSGOVERNMENT", "AZUREUSGOVERNMENTCLOUD":
		return cloud.AzureGovernment, nil
	case "AZURECHINACLOUD":
		return cloud.AzureChina, nil
	case "AZURESTACKCLOUD":
		for key, v := range map[string]string{"activeDirectoryAuthorityHost": c.ActiveDirectoryAuthorityHost,
			"resourceManagerEndpoint": c.ResourceManagerEndpoint, "resourceManagerAudience": c.ResourceManagerAudience} {
			if v == "" {
				return cloud.Configuration{}, fmt.Errorf("azure.json: cloud AzureStackCloud needs %s", key)
			}
		}
		return cloud.Configuration{
			ActiveDirectoryAuthorityHost: c.ActiveDirectoryAuthorityHost,
			Services: map[cloud.ServiceName]cloud.ServiceConfiguration{
				cloud.ResourceManager: {Audience: c.ResourceManagerAudience, Endpoint: c.ResourceManagerEndpoint},
			},
		}, nil
	}
	return cloud.Configuration{}, fmt.Errorf("azure.json: cloud %q is not AzurePublicCloud, AzureUSGovernmentCloud, AzureChinaCloud or AzureStackCloud", c.Cloud)
}

// Credential picks the login external-dns picks, in its order: a client secret (aadClientId and
// aadClientSecret, neither "msi"), workload identity, managed identity (user-assigned when
// userAssignedIdentityID is set).
//
// With AzureStackCloud, instance discovery is off: MSAL would otherwise ask login.microsoftonline.com
// to vouch for the custom authority host (external-dns leaves it on, so it needs that host reachable).
func (c FileConfig) Credential(opts azcore.ClientOptions) (azcore.TokenCredential, string, error) {
	noDiscovery := strings.EqualFold(c.Cloud, "AzureStackCloud")
	switch {
	case c.ClientID != "" && c.ClientSecret != "" && !strings.EqualFold(c.ClientID, "msi") && !strings.EqualFold(c.ClientSecret, "msi"):
		if c.TenantID == "" {
			return nil, "", fmt.Errorf("azure.json: a client secret login needs tenantId")
		}
		cred, err := azidentity.NewClientSecretCredential(c.TenantID, c.ClientID, c.ClientSecret, &azidentity.ClientSecretCredentialOptions{ClientOptions: opts, DisableInstanceDiscovery: noDiscovery})
		return cred, "client secret", err
	case c.UseWorkloadIdentityExtension:
		cred, err := azidentity.NewWorkloadIdentityCredential(&azidentity.WorkloadIdentityCredentialOptions{ClientOptions: opts, TenantID: c.TenantID, ClientID: c.ClientID,
			DisableInstanceDiscovery: noDiscovery})
		return cred, "workload identity", err
	case c.UseManagedIdentityExtension:
		o := azidentity.ManagedIdentityCredentialOptions{ClientOptions: opts}
		if c.UserAssignedIdentityID != "" {
			o.ID = azidentity.ClientID(c.UserAssignedIdentityID)
		}
		cred, err := azidentity.NewManagedIdentityCredential(&o)
		return cred, "managed identity", err
	}
	return nil, "", fmt.Errorf("azure.json: no credentials: set aadClientId and aadClientSecret, useWorkloadIdentityExtension or useManagedIdentityExtension")
}
