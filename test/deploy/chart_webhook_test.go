package deploy

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// Value sets for the webhook provider, written as external-dns chart users write them today.
var (
	// A Hetzner-webhook-style sidecar from a values file: the API token from a Secret, the sidecar's own
	// health paths, a writable /tmp from an emptyDir, and the sidecar scraped next to zonekeeper.
	hetznerWebhookValues = `
provider:
  name: webhook
  webhook:
    image:
      repository: ghcr.io/mconfalonieri/external-dns-hetzner-webhook
      tag: v0.7.0
      pullPolicy: Always
    env:
      - name: HETZNER_API_KEY
        valueFrom:
          secretKeyRef:
            name: hetzner-credentials
            key: api-key
      - name: WEBHOOK_HOST
        value: 0.0.0.0
    args: [--log-level=debug]
    extraVolumeMounts:
      - name: webhook-tmp
        mountPath: /tmp
    resources:
      requests: {cpu: 5m, memory: 32Mi}
    livenessProbe:
      httpGet:
        path: /health
        port: http-webhook
      initialDelaySeconds: 10
      timeoutSeconds: 5
    readinessProbe:
      httpGet:
        path: /ready
        port: http-webhook
      initialDelaySeconds: 10
      timeoutSeconds: 5
    serviceMonitor:
      interval: 30s
      scrapeTimeout: 10s
      metricRelabelings:
        - sourceLabels: [__name__]
          regex: go_.*
          action: drop
extraVolumes:
  - name: webhook-tmp
    emptyDir: {}
sources: [service, ingress]
domainFilters: [example.com]
policy: sync
txtOwnerId: hetzner
serviceMonitor:
  enabled: true
  interval: 1m
`
	// A PowerDNS-webhook-style sidecar from Terraform --set flags: key from a Secret, the default
	// probes, two replicas with leader election.
	pdnsWebhookSet = []string{
		"provider.name=webhook",
		"provider.webhook.image.repository=ghcr.io/example/external-dns-pdns-webhook",
		"provider.webhook.image.tag=1.4.2",
		"provider.webhook.env[0].name=PDNS_API_KEY",
		"provider.webhook.env[0].valueFrom.secretKeyRef.name=pdns-api",
		"provider.webhook.env[0].valueFrom.secretKeyRef.key=api-key",
		"provider.webhook.args={--pdns-server=http://pdns.dns.svc:8081}",
		"txtOwnerId=pdns",
		"policy=sync",
		"replicaCount=2",
	}
)

// TestChartWebhookSidecar renders the chart with provider webhook, applies the result to a real
// kube-apiserver with strict field validation and checks the sidecar, the Service and ServiceMonitor
// ports for it, and that zonekeeper itself is set up as for any other provider.
func TestChartWebhookSidecar(t *testing.T) {
	c := startCluster(t)
	c.apply(t, decodeObjects(t, readFile(t, "test/deploy/testdata/servicemonitors-crd.yaml")))
	c.waitForKind(t, "monitoring.coreos.com", "ServiceMonitor")

	t.Run("hetzner-values-file", func(t *testing.T) {
		objs := mustHelmTemplate(t, chartRender{release: "external-dns", namespace: "dns", values: hetznerWebhookValues})
		c.apply(t, objs)
		d := deployment(t, objs)
		if n := len(d.Spec.Template.Spec.Containers); n != 2 {
			t.Errorf("want the zonekeeper and webhook containers, got %d", n)
		}

		main := container(t, d)
		wantArgs(t, main.Args, "--provider=webhook", "--txt-owner-id=hetzner", "--domain-filter=example.com")
		// The sidecar listens on the default --webhook-provider-url, http://localhost:8888.
		noArgPrefix(t, main.Args, "--webhook-")
		wantSecureDefaults(t, d) // zonekeeper's own container, ports and probes are untouched
		if _, ok := envVar(main, "HETZNER_API_KEY"); ok {
			t.Error("the sidecar's credentials leaked into zonekeeper's environment")
		}

		w := webhookContainer(t, d)
		if w.Image != "ghcr.io/mconfalonieri/external-dns-hetzner-webhook:v0.7.0" || w.ImagePullPolicy != corev1.PullAlways {
			t.Errorf("webhook image = %s (%s)", w.Image, w.ImagePullPolicy)
		}
		wantSecretEnv(t, w, "HETZNER_API_KEY", "hetzner-credentials", "api-key")
		wantEnvValue(t, w, "WEBHOOK_HOST", "0.0.0.0")
		if !slices.Equal(w.Args, []string{"--log-level=debug"}) {
			t.Errorf("webhook args = %v", w.Args)
		}
		wantWebhookPort(t, w)
		wantWebhookProbe(t, "liveness", w.LivenessProbe, "/health")
		wantWebhookProbe(t, "readiness", w.ReadinessProbe, "/ready")
		wantSidecarSecure(t, w)
		if len(w.VolumeMounts) != 1 || w.VolumeMounts[0].Name != "webhook-tmp" || w.VolumeMounts[0].MountPath != "/tmp" {
			t.Errorf("webhook volumeMounts = %+v", w.VolumeMounts)
		}
		if cpu := w.Resources.Requests[corev1.ResourceCPU]; cpu.String() != "5m" {
			t.Errorf("webhook resources = %+v", w.Resources)
		}

		svc := typed[corev1.Service](t, find(t, objs, "Service", "external-dns-zonekeeper"))
		wantWebhookServicePort(t, svc, 8080)
		live, err := c.kube.Client(t).CoreV1().Services("dns").Get(t.Context(), "external-dns-zonekeeper", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		wantWebhookServicePort(t, live, 8080)

		endpoints := serviceMonitorEndpoints(t, find(t, objs, "ServiceMonitor", "external-dns-zonekeeper"))
		if len(endpoints) != 2 || endpoints[0]["port"] != "http" || endpoints[0]["interval"] != "1m" {
			t.Fatalf("ServiceMonitor endpoints: want zonekeeper's http then the sidecar's, got %v", endpoints)
		}
		sidecar := endpoints[1]
		relabel, _ := sidecar["metricRelabelings"].([]any)
		if sidecar["port"] != "http-webhook" || sidecar["path"] != "/metrics" || sidecar["interval"] != "30s" ||
			sidecar["scrapeTimeout"] != "10s" || len(relabel) != 1 {
			t.Errorf("sidecar ServiceMonitor endpoint = %v", sidecar)
		}
	})

	t.Run("pdns-set-flags-with-leader-election", func(t *testing.T) {
		objs := mustHelmTemplate(t, chartRender{release: "zk", namespace: "dns", set: pdnsWebhookSet})
		c.apply(t, objs)
		d := deployment(t, objs)
		main := container(t, d)
		wantArgs(t, main.Args, "--provider=webhook", "--leader-elect", "--leader-elect-lease-name=zk-zonekeeper")
		noArgPrefix(t, main.Args, "--webhook-")
		noArgPrefix(t, main.Args, "--pdns-")
		wantSecureDefaults(t, d)
		if d.Spec.Strategy.Type != "RollingUpdate" {
			t.Errorf("with leader election the strategy is RollingUpdate, got %q", d.Spec.Strategy.Type)
		}
		if _, ok := roles(t, objs)["Role/zk-zonekeeper-leader-election"]; !ok {
			t.Errorf("no leader-election Role: %v", kinds(objs))
		}

		w := webhookContainer(t, d)
		if w.Image != "ghcr.io/example/external-dns-pdns-webhook:1.4.2" || w.ImagePullPolicy != corev1.PullIfNotPresent {
			t.Errorf("webhook image = %s (%s)", w.Image, w.ImagePullPolicy)
		}
		wantSecretEnv(t, w, "PDNS_API_KEY", "pdns-api", "api-key")
		if !slices.Equal(w.Args, []string{"--pdns-server=http://pdns.dns.svc:8081"}) {
			t.Errorf("webhook args = %v", w.Args)
		}
		wantWebhookPort(t, w)
		// external-dns's chart defaults: /healthz on http-webhook.
		wantWebhookProbe(t, "liveness", w.LivenessProbe, "/healthz")
		wantWebhookProbe(t, "readiness", w.ReadinessProbe, "/healthz")
		if w.LivenessProbe.FailureThreshold != 2 || w.ReadinessProbe.FailureThreshold != 6 || w.ReadinessProbe.InitialDelaySeconds != 5 {
			t.Errorf("default probes differ from external-dns's chart: %+v %+v", w.LivenessProbe, w.ReadinessProbe)
		}
		wantSidecarSecure(t, w)
		if len(w.VolumeMounts) != 0 || len(w.Resources.Requests) != 0 {
			t.Errorf("nothing configured, yet volumeMounts %+v resources %+v", w.VolumeMounts, w.Resources)
		}
		wantWebhookServicePort(t, typed[corev1.Service](t, find(t, objs, "Service", "zk-zonekeeper")), 8080)
		if n := countKind(objs, "ServiceMonitor"); n != 0 {
			t.Errorf("serviceMonitor.enabled is false, yet %d ServiceMonitors", n)
		}
	})

	t.Run("rbac-as-for-any-provider", func(t *testing.T) {
		// The sidecar talks to the DNS provider, never to the API server: RBAC is the sources' own.
		webhook := roles(t, mustHelmTemplate(t, chartRender{release: "zk", namespace: "dns", values: hetznerWebhookValues}))
		coredns := roles(t, mustHelmTemplate(t, chartRender{release: "zk", namespace: "dns", values: homeLabValues}))
		if !reflect.DeepEqual(webhook, coredns) {
			t.Errorf("provider webhook changes RBAC:\nwebhook %+v\ncoredns %+v", webhook, coredns)
		}
	})

	t.Run("security-context-override", func(t *testing.T) {
		// A sidecar that must write to its root filesystem: the one key changes, the rest stays locked down.
		objs := mustHelmTemplate(t, chartRender{release: "zk-sc", namespace: "dns", values: hetznerWebhookValues,
			set: []string{"provider.webhook.securityContext.readOnlyRootFilesystem=false", "provider.webhook.securityContext.runAsUser=1000"}})
		c.apply(t, objs)
		sc := webhookContainer(t, deployment(t, objs)).SecurityContext
		if sc == nil || sc.ReadOnlyRootFilesystem == nil || *sc.ReadOnlyRootFilesystem || sc.RunAsUser == nil || *sc.RunAsUser != 1000 {
			t.Fatalf("override not applied: %+v", sc)
		}
		if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || sc.Capabilities == nil ||
			!slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
			t.Errorf("overriding one key dropped the other defaults: %+v", sc)
		}
	})

	t.Run("custom-service-port", func(t *testing.T) {
		objs := mustHelmTemplate(t, chartRender{release: "zk-port", namespace: "dns", set: append(slices.Clone(pdnsWebhookSet), "provider.webhook.service.port=9090")})
		c.apply(t, objs)
		// As in external-dns's chart the port is the Service's; the sidecar still listens on 8080.
		wantWebhookServicePort(t, typed[corev1.Service](t, find(t, objs, "Service", "zk-port-zonekeeper")), 9090)
		wantWebhookPort(t, webhookContainer(t, deployment(t, objs)))
	})

	t.Run("no-sidecar-for-other-providers", func(t *testing.T) {
		// A webhook block left in the values does nothing unless the provider is webhook.
		values := strings.Replace(hetznerWebhookValues, "  name: webhook\n", "  name: coredns\n", 1)
		objs := mustHelmTemplate(t, chartRender{release: "zk", namespace: "dns", values: values})
		d := deployment(t, objs)
		if n := len(d.Spec.Template.Spec.Containers); n != 1 {
			t.Errorf("provider coredns renders %d containers", n)
		}
		wantArgs(t, container(t, d).Args, "--provider=coredns")
		svc := typed[corev1.Service](t, find(t, objs, "Service", "zk-zonekeeper"))
		if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Name != "http" {
			t.Errorf("Service ports = %+v", svc.Spec.Ports)
		}
		if eps := serviceMonitorEndpoints(t, find(t, objs, "ServiceMonitor", "zk-zonekeeper")); len(eps) != 1 {
			t.Errorf("ServiceMonitor endpoints = %v", eps)
		}
	})
}

// TestChartWebhookFlagsParse requires zonekeeper's parser to accept the command line the chart renders
// for provider webhook.
func TestChartWebhookFlagsParse(t *testing.T) {
	for name, r := range map[string]chartRender{
		"values-file": {release: "external-dns", namespace: "dns", values: hetznerWebhookValues},
		"set-flags":   {release: "zk", namespace: "dns", set: pdnsWebhookSet},
	} {
		t.Run(name, func(t *testing.T) {
			wantParses(t, container(t, deployment(t, mustHelmTemplate(t, r))).Args, nil)
		})
	}
}

// TestChartWebhookMatchesExternalDNSChart renders external-dns's own chart (from the Go module cache,
// where hack/testbed.sh's `go install sigs.k8s.io/external-dns` leaves it) and this chart with the same
// values: the sidecar, its Service port and its ServiceMonitor endpoint must be the same, except the
// securityContext, which this chart locks down by default.
func TestChartWebhookMatchesExternalDNSChart(t *testing.T) {
	chart := externalDNSChart(t)
	theirs := decodeObjects(t, mustRun(t, testbedHelm(t), "template", "external-dns", chart, "--namespace", "dns",
		"--values", writeTemp(t, hetznerWebhookValues)))
	ours := mustHelmTemplate(t, chartRender{release: "external-dns", namespace: "dns", values: hetznerWebhookValues})

	theirDeployment := deployment(t, theirs)
	a, b := webhookContainer(t, theirDeployment), webhookContainer(t, deployment(t, ours))
	if a.SecurityContext != nil {
		t.Errorf("external-dns's chart now sets a webhook securityContext (%+v): compare it", a.SecurityContext)
	}
	b.SecurityContext = nil
	if !reflect.DeepEqual(a, b) {
		t.Errorf("webhook container differs from external-dns's chart:\nexternal-dns %+v\nzonekeeper   %+v", a, b)
	}
	for _, ctr := range theirDeployment.Spec.Template.Spec.Containers {
		if ctr.Name == "external-dns" {
			wantArgs(t, ctr.Args, "--provider=webhook")
			noArgPrefix(t, ctr.Args, "--webhook-")
		}
	}

	servicePort := func(objs []*unstructured.Unstructured) corev1.ServicePort {
		for _, p := range typed[corev1.Service](t, find(t, objs, "Service", "")).Spec.Ports {
			if p.Name == "http-webhook" {
				return p
			}
		}
		t.Fatal("no http-webhook Service port")
		return corev1.ServicePort{}
	}
	if a, b := servicePort(theirs), servicePort(ours); a != b {
		t.Errorf("http-webhook Service port: external-dns %+v, zonekeeper %+v", a, b)
	}

	theirEndpoints := serviceMonitorEndpoints(t, find(t, theirs, "ServiceMonitor", ""))
	ourEndpoints := serviceMonitorEndpoints(t, find(t, ours, "ServiceMonitor", ""))
	if len(theirEndpoints) != 2 || len(ourEndpoints) != 2 || !reflect.DeepEqual(theirEndpoints[1], ourEndpoints[1]) {
		t.Errorf("ServiceMonitor endpoints:\nexternal-dns %v\nzonekeeper   %v", theirEndpoints, ourEndpoints)
	}
}

// TestChartWebhookRejectsBadValues checks that a webhook setup that cannot work fails the render with
// the value named.
func TestChartWebhookRejectsBadValues(t *testing.T) {
	image := []string{"provider.name=webhook", "provider.webhook.image.repository=ghcr.io/example/webhook", "provider.webhook.image.tag=v1"}
	cases := map[string]struct {
		set  []string
		want string
	}{
		"provider as a plain name":             {[]string{"provider=webhook"}, "provider: webhook needs the sidecar's image"},
		"no image":                             {[]string{"provider.name=webhook"}, "provider.webhook.image.repository and provider.webhook.image.tag are required"},
		"no tag":                               {[]string{"provider.name=webhook", "provider.webhook.image.repository=ghcr.io/example/webhook"}, "provider.webhook.image.tag are required"},
		"metrics on the sidecar's health port": {append(slices.Clone(image), "service.port=8080"), "service.port 8080: with provider webhook the sidecar listens on 8080"},
		"metrics on the webhook API port":      {append(slices.Clone(image), "service.port=8888"), "service.port 8888"},
		"one Service port for both":            {append(slices.Clone(image), "provider.webhook.service.port=7979"), "provider.webhook.service.port 7979 is service.port too"},
		"views":                                {append(slices.Clone(image), "views[0].name=internal"), "views: the webhook protocol has one URL"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := helmTemplate(t, chartRender{release: "bad", namespace: "dns", set: append(tc.set, "txtOwnerId=bad")})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("want an error containing %q, got %v", tc.want, err)
			}
		})
	}
}

// webhookContainer returns the webhook sidecar of a Deployment.
func webhookContainer(t testing.TB, d *appsv1.Deployment) corev1.Container {
	t.Helper()
	for _, c := range d.Spec.Template.Spec.Containers {
		if c.Name == "webhook" {
			return c
		}
	}
	t.Fatalf("deployment %s has no webhook container", d.Name)
	return corev1.Container{}
}

// wantWebhookPort checks the sidecar's one port: http-webhook on 8080, as external-dns's chart has it.
// The webhook API (8888) is reached over localhost and is not a container port.
func wantWebhookPort(t testing.TB, c corev1.Container) {
	t.Helper()
	want := []corev1.ContainerPort{{Name: "http-webhook", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}
	if !slices.Equal(c.Ports, want) {
		t.Errorf("webhook ports: want %+v, got %+v", want, c.Ports)
	}
}

func wantWebhookProbe(t testing.TB, what string, p *corev1.Probe, path string) {
	t.Helper()
	if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != path || p.HTTPGet.Port.String() != "http-webhook" {
		t.Errorf("webhook %s probe: want GET %s on port http-webhook, got %+v", what, path, p)
	}
}

// wantSidecarSecure checks the sidecar gets zonekeeper's locked-down container settings.
func wantSidecarSecure(t testing.TB, c corev1.Container) {
	t.Helper()
	sc := c.SecurityContext
	switch {
	case sc == nil:
		t.Error("webhook container has no securityContext")
	case sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot:
		t.Error("webhook runAsNonRoot is not true")
	case sc.RunAsUser == nil || *sc.RunAsUser == 0:
		t.Error("webhook runAsUser is not a non-root uid")
	case sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
		t.Error("webhook readOnlyRootFilesystem is not true")
	case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
		t.Error("webhook allowPrivilegeEscalation is not false")
	case sc.Privileged != nil && *sc.Privileged:
		t.Error("webhook container is privileged")
	case sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) > 0:
		t.Errorf("webhook capabilities: want drop [ALL] and nothing added, got %+v", sc.Capabilities)
	}
}

// wantWebhookServicePort checks the Service's http-webhook port (next to zonekeeper's http).
func wantWebhookServicePort(t testing.TB, svc *corev1.Service, port int32) {
	t.Helper()
	want := []corev1.ServicePort{
		{Name: "http", Port: 7979, TargetPort: intstr.FromString("http"), Protocol: corev1.ProtocolTCP},
		{Name: "http-webhook", Port: port, TargetPort: intstr.FromString("http-webhook"), Protocol: corev1.ProtocolTCP},
	}
	if !slices.Equal(svc.Spec.Ports, want) {
		t.Errorf("Service %s ports: want %+v, got %+v", svc.Name, want, svc.Spec.Ports)
	}
}

func serviceMonitorEndpoints(t testing.TB, sm *unstructured.Unstructured) []map[string]any {
	t.Helper()
	raw, _, err := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
	if err != nil {
		t.Fatalf("ServiceMonitor %s: %v", sm.GetName(), err)
	}
	var out []map[string]any
	for _, e := range raw {
		m, ok := e.(map[string]any)
		if !ok {
			t.Fatalf("ServiceMonitor %s: endpoint %v is not a map", sm.GetName(), e)
		}
		out = append(out, m)
	}
	return out
}

// externalDNSChart returns external-dns's chart directory, from the Go module cache. It used to be
// found only when hack/testbed.sh had just built external-dns (go install leaves the module there):
// with the binary already cached and a fresh module cache the test skipped, silently, in CI too. The
// module is now fetched with go mod download (a no-op when it is cached); when that fails the test
// fails under CI=true and skips otherwise.
func externalDNSChart(t testing.TB) string {
	t.Helper()
	const module = "sigs.k8s.io/external-dns@v0.21.0"
	missing := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("CI") == "true" {
			t.Fatalf(format, args...)
		}
		t.Skipf(format, args...)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		missing("no go command to fetch %s's chart: %v", module, err)
	}
	cmd := exec.Command(goBin, "mod", "download", "-json", module)
	cmd.Dir = t.TempDir() // outside this module: go.mod and go.sum stay as they are
	out, err := cmd.Output()
	var dl struct{ Dir, Error string }
	if err == nil {
		err = json.Unmarshal(out, &dl)
	}
	if err != nil || dl.Error != "" {
		missing("go mod download %s: %v %s", module, err, dl.Error)
	}
	dir := filepath.Join(dl.Dir, "charts", "external-dns")
	if _, err := os.Stat(filepath.Join(dir, "Chart.yaml")); err != nil {
		t.Fatalf("%s has no chart: %v", module, err)
	}
	return dir
}

func testbedHelm(t testing.TB) string {
	t.Helper()
	return testbed.Binary(t, "helm")
}

func mustRun(t testing.TB, bin string, args ...string) []byte {
	t.Helper()
	out, err := runTool(t, bin, args...)
	if err != nil {
		t.Fatalf("%s %s: %v", filepath.Base(bin), strings.Join(args, " "), err)
	}
	return out
}

func writeTemp(t testing.TB, content string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(f, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}
