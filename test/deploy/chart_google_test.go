package deploy

import (
	"testing"
)

// The google block: the flags, the key from an existing Secret mounted read-only and named by
// GOOGLE_APPLICATION_CREDENTIALS; Workload Identity needs only the service account annotation (no key,
// no volume); and the external-dns chart's way (provider {name: google}, the key through extraVolumes
// and env) renders unchanged. zonekeeper's own parser accepts every command line.
func TestChartGoogleValues(t *testing.T) {
	t.Run("key-from-secret", func(t *testing.T) {
		objs := mustHelmTemplate(t, chartRender{release: "zk", namespace: "dns", values: `
provider: google
domainFilters: [example.com]
google:
  project: my-project
  zoneVisibility: private
  batchChangeSize: 200
  batchChangeInterval: 2s
  serviceAccountSecretRef: {name: gcp-dns, key: credentials.json}
`})
		d := deployment(t, objs)
		c := container(t, d)
		wantArgs(t, c.Args, "--provider=google", "--google-project=my-project", "--google-zone-visibility=private",
			"--google-batch-change-size=200", "--google-batch-change-interval=2s", "--domain-filter=example.com")
		var credEnv string
		for _, e := range c.Env {
			if e.Name == "GOOGLE_APPLICATION_CREDENTIALS" {
				credEnv = e.Value
			}
		}
		if credEnv != "/etc/zonekeeper/google/credentials.json" {
			t.Errorf("GOOGLE_APPLICATION_CREDENTIALS=%q", credEnv)
		}
		mounted := false
		for _, m := range c.VolumeMounts {
			if m.Name == "google-credentials" && m.MountPath == "/etc/zonekeeper/google" && m.ReadOnly {
				mounted = true
			}
		}
		fromSecret := false
		for _, v := range d.Spec.Template.Spec.Volumes {
			if v.Name == "google-credentials" && v.Secret != nil && v.Secret.SecretName == "gcp-dns" &&
				len(v.Secret.Items) == 1 && v.Secret.Items[0].Key == "credentials.json" {
				fromSecret = true
			}
		}
		if !mounted || !fromSecret {
			t.Errorf("the key is not mounted read-only from Secret gcp-dns: mounts %v volumes %v", c.VolumeMounts, d.Spec.Template.Spec.Volumes)
		}
		wantParses(t, c.Args, nil)
	})

	t.Run("workload-identity", func(t *testing.T) {
		objs := mustHelmTemplate(t, chartRender{release: "zk", namespace: "dns", values: `
provider: google
google: {project: my-project}
serviceAccount:
  annotations: {iam.gke.io/gcp-service-account: dns@my-project.iam.gserviceaccount.com}
`})
		d := deployment(t, objs)
		c := container(t, d)
		wantArgs(t, c.Args, "--provider=google", "--google-project=my-project")
		noArgPrefix(t, c.Args, "--google-zone-visibility")
		noArgPrefix(t, c.Args, "--google-batch-change")
		for _, e := range c.Env {
			if e.Name == "GOOGLE_APPLICATION_CREDENTIALS" {
				t.Errorf("a key file is named without a key: %v", e)
			}
		}
		sa := find(t, objs, "ServiceAccount", "")
		if sa.GetAnnotations()["iam.gke.io/gcp-service-account"] != "dns@my-project.iam.gserviceaccount.com" {
			t.Errorf("service account annotations %v", sa.GetAnnotations())
		}
		wantParses(t, c.Args, nil)
	})

	t.Run("external-dns-chart-style", func(t *testing.T) {
		objs := mustHelmTemplate(t, chartRender{release: "zk", namespace: "dns", values: `
provider: {name: google}
extraArgs: {google-project: my-project}
env:
  - {name: GOOGLE_APPLICATION_CREDENTIALS, value: /etc/secrets/service-account/credentials.json}
extraVolumes:
  - {name: google-service-account, secret: {secretName: external-dns}}
extraVolumeMounts:
  - {name: google-service-account, mountPath: /etc/secrets/service-account/}
`})
		c := container(t, deployment(t, objs))
		wantArgs(t, c.Args, "--provider=google", "--google-project=my-project")
		wantParses(t, c.Args, nil)
	})
}
