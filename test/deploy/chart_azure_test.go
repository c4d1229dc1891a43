package deploy

import (
	"testing"
)

// The azure block, for both azure kinds: the flags, azure.json from an existing Secret mounted
// read-only and named by --azure-config-file; workload identity needs only the file, the service
// account annotation and the pod label; and the external-dns chart's way (the Secret through
// extraVolumes at the default /etc/kubernetes/azure.json) renders unchanged. zonekeeper's own parser
// accepts every command line.
func TestChartAzureValues(t *testing.T) {
	for _, prov := range []string{"azure", "azure-private-dns"} {
		t.Run(prov+"/config-from-secret", func(t *testing.T) {
			objs := mustHelmTemplate(t, chartRender{release: "zk", namespace: "dns", values: `
provider: ` + prov + `
domainFilters: [example.com]
azure:
  configSecretRef: {name: azure-config-file, key: azure.json}
  resourceGroup: rg-dns
  subscriptionId: 00000000-0000-0000-0000-000000000001
  userAssignedIdentityClientId: uid
  zonesCacheDuration: 5m
  maxRetriesCount: 5
`})
			d := deployment(t, objs)
			c := container(t, d)
			wantArgs(t, c.Args, "--provider="+prov, "--azure-config-file=/etc/zonekeeper/azure/azure.json", "--azure-resource-group=rg-dns",
				"--azure-subscription-id=00000000-0000-0000-0000-000000000001", "--azure-user-assigned-identity-client-id=uid",
				"--azure-zones-cache-duration=5m", "--azure-maxretries-count=5", "--domain-filter=example.com")
			mounted := false
			for _, m := range c.VolumeMounts {
				if m.Name == "azure-config" && m.MountPath == "/etc/zonekeeper/azure" && m.ReadOnly {
					mounted = true
				}
			}
			fromSecret := false
			for _, v := range d.Spec.Template.Spec.Volumes {
				if v.Name == "azure-config" && v.Secret != nil && v.Secret.SecretName == "azure-config-file" &&
					len(v.Secret.Items) == 1 && v.Secret.Items[0].Key == "azure.json" {
					fromSecret = true
				}
			}
			if !mounted || !fromSecret {
				t.Errorf("azure.json is not mounted read-only from Secret azure-config-file: mounts %v volumes %v", c.VolumeMounts, d.Spec.Template.Spec.Volumes)
			}
			wantParses(t, c.Args, nil)
		})
	}

	t.Run("workload-identity", func(t *testing.T) {
		objs := mustHelmTemplate(t, chartRender{release: "zk", namespace: "dns", values: `
provider: azure
azure: {configSecretRef: {name: azure-config-file}}
podLabels: {azure.workload.identity/use: "true"}
serviceAccount:
  annotations: {azure.workload.identity/client-id: 11111111-1111-1111-1111-111111111111}
`})
		d := deployment(t, objs)
		c := container(t, d)
		wantArgs(t, c.Args, "--provider=azure", "--azure-config-file=/etc/zonekeeper/azure/azure.json")
		noArgPrefix(t, c.Args, "--azure-resource-group")
		noArgPrefix(t, c.Args, "--azure-maxretries-count")
		if d.Spec.Template.Labels["azure.workload.identity/use"] != "true" {
			t.Errorf("pod labels %v", d.Spec.Template.Labels)
		}
		sa := find(t, objs, "ServiceAccount", "")
		if sa.GetAnnotations()["azure.workload.identity/client-id"] != "11111111-1111-1111-1111-111111111111" {
			t.Errorf("service account annotations %v", sa.GetAnnotations())
		}
		wantParses(t, c.Args, nil)
	})

	t.Run("external-dns-chart-style", func(t *testing.T) {
		objs := mustHelmTemplate(t, chartRender{release: "zk", namespace: "dns", values: `
provider: {name: azure-private-dns}
extraVolumes:
  - {name: azure-config-file, secret: {secretName: azure-config-file}}
extraVolumeMounts:
  - {name: azure-config-file, mountPath: /etc/kubernetes, readOnly: true}
`})
		c := container(t, deployment(t, objs))
		wantArgs(t, c.Args, "--provider=azure-private-dns")
		noArgPrefix(t, c.Args, "--azure-config-file")
		wantParses(t, c.Args, nil)
	})
}
