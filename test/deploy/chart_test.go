package deploy

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/zonekeeper/zonekeeper/internal/config"
)

const irsaRoleARN = "arn:aws:iam::123456789012:role/external-dns"

// The value sets our users run with external-dns today, written the way they write them.
var (
	// EKS with IRSA, from a values file.
	eksIRSAValues = `
serviceAccount:
  create: true
  name: external-dns-sa
  annotations:
    eks.amazonaws.com/role-arn: ` + irsaRoleARN + `
sources: [service, ingress]
domainFilters: [externaldns.test]
provider: aws
policy: sync
aws:
  zoneType: public
registry: txt
txtOwnerId: external-dns
`
	// Terraform's helm_release with set blocks: RBAC and the ServiceAccount are made by Terraform.
	terraformSet = []string{
		"rbac.create=false",
		"serviceAccount.create=false",
		"serviceAccount.name=external-dns",
		"logLevel=warn",
		"sources={ingress,service}",
		"provider=aws",
		"aws.region=eu-west-1",
		"txtOwnerId=terraform",
		"policy=sync",
	}
	// Bare metal: Route53 with static keys of an IAM user, from a Secret made outside Helm.
	bareMetalValues = `
provider:
  name: aws
aws:
  region: us-east-1
  credentials:
    accessKeyIDSecretRef:
      name: route53-credentials
      key: access-key-id
    secretAccessKeySecretRef:
      name: route53-credentials
      key: secret-access-key
domainFilters: [example.org]
policy: upsert-only
txtPrefix: prefix_
txtOwnerId: bare-metal
logLevel: debug
`
	// Home lab: CoreDNS over etcd.
	homeLabValues = `
provider: coredns
env:
  - name: ETCD_URLS
    value: http://etcd.dns.svc.cluster.local:2379
domainFilters: [home.arpa]
policy: sync
txtOwnerId: homelab
sources: [service, ingress]
`
	// High availability: two replicas with leader election, a PodDisruptionBudget and a ServiceMonitor.
	haValues = `
provider: coredns
env:
  - name: ETCD_URLS
    value: http://etcd:2379
replicaCount: 2
podDisruptionBudget:
  enabled: true
serviceMonitor:
  enabled: true
  interval: 30s
resources:
  requests: {cpu: 10m, memory: 64Mi}
nodeSelector: {kubernetes.io/os: linux}
tolerations: [{key: dedicated, operator: Equal, value: dns, effect: NoSchedule}]
affinity:
  podAntiAffinity:
    preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 100
        podAffinityTerm:
          topologyKey: kubernetes.io/hostname
          labelSelector:
            matchLabels: {app.kubernetes.io/name: zonekeeper}
extraArgs:
  coredns-prefix: /skydns/
  managed-record-types: [A, CNAME]
`
)

// TestChartValueSets renders the chart for each setup and applies the result to a real kube-apiserver,
// then checks the fields that make the setup work.
func TestChartValueSets(t *testing.T) {
	c := startCluster(t)
	admin := c.kube.Client(t)
	ctx := context.Background()

	t.Run("eks-irsa", func(t *testing.T) {
		objs := mustHelmTemplate(t, chartRender{release: "external-dns", namespace: "kube-system", values: eksIRSAValues})
		c.apply(t, objs)

		sa := typed[corev1.ServiceAccount](t, find(t, objs, "ServiceAccount", "external-dns-sa"))
		if got := sa.Annotations["eks.amazonaws.com/role-arn"]; got != irsaRoleARN {
			t.Errorf("ServiceAccount role-arn annotation = %q, want %q", got, irsaRoleARN)
		}
		live, err := admin.CoreV1().ServiceAccounts("kube-system").Get(ctx, "external-dns-sa", metav1.GetOptions{})
		if err != nil || live.Annotations["eks.amazonaws.com/role-arn"] != irsaRoleARN {
			t.Errorf("applied ServiceAccount lacks the IRSA annotation: %v %v", err, live)
		}
		d := deployment(t, objs)
		if d.Spec.Template.Spec.ServiceAccountName != "external-dns-sa" {
			t.Errorf("serviceAccountName = %q", d.Spec.Template.Spec.ServiceAccountName)
		}
		args := container(t, d).Args
		wantArgs(t, args, "--source=service", "--source=ingress", "--domain-filter=externaldns.test", "--provider=aws",
			"--policy=sync", "--aws-zone-type=public", "--registry=txt", "--txt-owner-id=external-dns")
		noArgPrefix(t, args, "--leader-elect")
		if d.Spec.Strategy.Type != "Recreate" {
			t.Errorf("one replica without leader election must use Recreate, got %q", d.Spec.Strategy.Type)
		}
		wantSecureDefaults(t, d)
		checkFlagsKnown(t, args)
		for _, name := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"} {
			if _, ok := envVar(container(t, d), name); ok {
				t.Errorf("IRSA needs no %s", name)
			}
		}
		crb := typed[rbacv1.ClusterRoleBinding](t, find(t, objs, "ClusterRoleBinding", ""))
		if len(crb.Subjects) != 1 || crb.Subjects[0].Name != "external-dns-sa" || crb.Subjects[0].Namespace != "kube-system" {
			t.Errorf("ClusterRoleBinding subjects = %+v", crb.Subjects)
		}
	})

	t.Run("provider-as-map", func(t *testing.T) {
		// external-dns's chart moved from provider: aws to provider: {name: aws}; both must give the same pod.
		asMap := strings.Replace(eksIRSAValues, "provider: aws", "provider:\n  name: aws", 1)
		a := container(t, deployment(t, mustHelmTemplate(t, chartRender{release: "external-dns", namespace: "kube-system", values: eksIRSAValues}))).Args
		b := container(t, deployment(t, mustHelmTemplate(t, chartRender{release: "external-dns", namespace: "kube-system", values: asMap}))).Args
		if !slices.Equal(a, b) {
			t.Errorf("provider as a string and as {name:} render different args:\n%v\n%v", a, b)
		}
	})

	t.Run("terraform", func(t *testing.T) {
		c.ensureNamespace(t, "external-dns")
		// Terraform made the ServiceAccount (with its IRSA annotation) before the release.
		_, err := admin.CoreV1().ServiceAccounts("external-dns").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{
			Name: "external-dns", Annotations: map[string]string{"eks.amazonaws.com/role-arn": irsaRoleARN}}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		objs := mustHelmTemplate(t, chartRender{release: "external-dns", namespace: "external-dns", set: terraformSet})
		c.apply(t, objs)
		for _, kind := range []string{"ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"} {
			if n := countKind(objs, kind); n != 0 {
				t.Errorf("rbac.create=false and serviceAccount.create=false, yet %d %s rendered", n, kind)
			}
		}
		d := deployment(t, objs)
		if d.Spec.Template.Spec.ServiceAccountName != "external-dns" {
			t.Errorf("serviceAccountName = %q, want the existing external-dns", d.Spec.Template.Spec.ServiceAccountName)
		}
		ctr := container(t, d)
		wantArgs(t, ctr.Args, "--log-level=warn", "--provider=aws", "--txt-owner-id=terraform")
		if got := argValues(ctr.Args, "source"); !slices.Equal(got, []string{"ingress", "service"}) {
			t.Errorf("sources from --set sources={ingress,service} = %v", got)
		}
		wantEnvValue(t, ctr, "AWS_REGION", "eu-west-1")
		wantEnvValue(t, ctr, "AWS_DEFAULT_REGION", "eu-west-1")
		wantSecureDefaults(t, d)
		checkFlagsKnown(t, ctr.Args)
	})

	t.Run("bare-metal-static-keys", func(t *testing.T) {
		c.ensureNamespace(t, "dns")
		_, err := admin.CoreV1().Secrets("dns").Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "route53-credentials"},
			StringData: map[string]string{"access-key-id": "AKIATESTTESTTEST", "secret-access-key": "test-secret"}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		objs := mustHelmTemplate(t, chartRender{release: "zonekeeper", namespace: "dns", values: bareMetalValues})
		c.apply(t, objs)
		d := deployment(t, objs)
		ctr := container(t, d)
		wantArgs(t, ctr.Args, "--provider=aws", "--policy=upsert-only", "--txt-prefix=prefix_", "--log-level=debug", "--domain-filter=example.org")
		noArgPrefix(t, ctr.Args, "--txt-suffix")
		wantSecretEnv(t, ctr, "AWS_ACCESS_KEY_ID", "route53-credentials", "access-key-id")
		wantSecretEnv(t, ctr, "AWS_SECRET_ACCESS_KEY", "route53-credentials", "secret-access-key")
		wantEnvValue(t, ctr, "AWS_REGION", "us-east-1")
		if n := countKind(objs, "Secret"); n != 0 {
			t.Errorf("keys come from an existing Secret; the chart must not render one (got %d)", n)
		}
		wantSecureDefaults(t, d)
		checkFlagsKnown(t, ctr.Args)
	})

	t.Run("literal-keys-go-to-a-secret", func(t *testing.T) {
		values := `
provider: aws
txtOwnerId: literal
aws:
  credentials:
    accessKey: AKIALITERALKEY0000
    secretKey: literal-secret-value
`
		objs := mustHelmTemplate(t, chartRender{release: "literal", namespace: "dns", values: values})
		c.apply(t, objs)
		secret := typed[corev1.Secret](t, find(t, objs, "Secret", "literal-zonekeeper-aws"))
		if len(secret.Data["aws_access_key_id"]) == 0 || len(secret.Data["aws_secret_access_key"]) == 0 {
			t.Errorf("chart Secret lacks the keys: %v", secret.Data)
		}
		dep := find(t, objs, "Deployment", "")
		raw, _ := yaml.Marshal(dep.Object)
		for _, literal := range []string{"AKIALITERALKEY0000", "literal-secret-value"} {
			if strings.Contains(string(raw), literal) {
				t.Errorf("the Deployment contains the literal key %q", literal)
			}
		}
		ctr := container(t, deployment(t, objs))
		wantSecretEnv(t, ctr, "AWS_ACCESS_KEY_ID", "literal-zonekeeper-aws", "aws_access_key_id")
		wantSecretEnv(t, ctr, "AWS_SECRET_ACCESS_KEY", "literal-zonekeeper-aws", "aws_secret_access_key")
	})

	t.Run("home-lab-coredns", func(t *testing.T) {
		objs := mustHelmTemplate(t, chartRender{release: "zonekeeper", namespace: "homelab", values: homeLabValues})
		c.apply(t, objs)
		d := deployment(t, objs)
		ctr := container(t, d)
		wantArgs(t, ctr.Args, "--provider=coredns", "--policy=sync", "--domain-filter=home.arpa", "--txt-owner-id=homelab")
		noArgPrefix(t, ctr.Args, "--aws-")
		wantEnvValue(t, ctr, "ETCD_URLS", "http://etcd.dns.svc.cluster.local:2379")
		wantSecureDefaults(t, d)
		// Every flag of this set exists today: zonekeeper's own parser must accept the whole command line.
		env := map[string]string{"ETCD_URLS": "http://etcd.dns.svc.cluster.local:2379"}
		if _, _, err := config.Parse("zonekeeper", ctr.Args, func(k string) string { return env[k] }, io.Discard); err != nil {
			t.Errorf("zonekeeper rejects the chart's command line %v: %v", ctr.Args, err)
		}
	})

	t.Run("high-availability", func(t *testing.T) {
		c.apply(t, decodeObjects(t, readFile(t, "test/deploy/testdata/servicemonitors-crd.yaml")))
		objs := mustHelmTemplate(t, chartRender{release: "zk", namespace: "dns-ha", values: haValues})
		c.waitForKind(t, "monitoring.coreos.com", "ServiceMonitor")
		c.apply(t, objs)
		d := deployment(t, objs)
		ctr := container(t, d)
		if d.Spec.Replicas == nil || *d.Spec.Replicas != 2 {
			t.Errorf("replicas = %v", d.Spec.Replicas)
		}
		wantArgs(t, ctr.Args, "--leader-elect", "--leader-elect-lease-name=zk-zonekeeper", "--leader-elect-lease-duration=15s",
			"--leader-elect-renew-deadline=10s", "--leader-elect-retry-period=2s",
			"--coredns-prefix=/skydns/", "--managed-record-types=A", "--managed-record-types=CNAME")
		if d.Spec.Strategy.Type != "RollingUpdate" {
			t.Errorf("with leader election the strategy is RollingUpdate, got %q", d.Spec.Strategy.Type)
		}
		pdb := typed[policyv1.PodDisruptionBudget](t, find(t, objs, "PodDisruptionBudget", "zk-zonekeeper"))
		if pdb.Spec.MaxUnavailable == nil || pdb.Spec.MaxUnavailable.IntValue() != 1 || pdb.Spec.MinAvailable != nil {
			t.Errorf("PodDisruptionBudget spec = %+v", pdb.Spec)
		}
		sm := find(t, objs, "ServiceMonitor", "zk-zonekeeper")
		if port, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints"); len(port) != 1 || port[0].(map[string]any)["port"] != "http" {
			t.Errorf("ServiceMonitor endpoints = %v", port)
		}
		lease := roles(t, objs)["Role/zk-zonekeeper-leader-election"]
		if len(lease) != 2 || !slices.Equal(lease[1].ResourceNames, []string{"zk-zonekeeper"}) {
			t.Errorf("leader-election Role = %+v", lease)
		}
		pod := d.Spec.Template.Spec
		cpu := ctr.Resources.Requests[corev1.ResourceCPU]
		if pod.NodeSelector["kubernetes.io/os"] != "linux" || len(pod.Tolerations) != 1 || pod.Affinity == nil || cpu.String() != "10m" {
			t.Errorf("scheduling values not passed through: %+v %+v %+v", pod.NodeSelector, pod.Tolerations, pod.Affinity)
		}
		wantSecureDefaults(t, d)
		checkFlagsKnown(t, ctr.Args)
	})

	t.Run("cdk-synthesized", func(t *testing.T) {
		// The values deploy/examples/cdk hands to addHelmChart, as `cdk synth` wrote them into the template.
		values := `{"provider":{"name":"aws"},"aws":{"region":"eu-west-1","zoneType":"public"},"serviceAccount":{"create":false,"name":"external-dns-sa"},"rbac":{"create":true},"sources":["service","ingress"],"domainFilters":["example.com"],"policy":"sync","registry":"txt","txtOwnerId":"external-dns","replicaCount":2,"podDisruptionBudget":{"enabled":true}}`
		objs := mustHelmTemplate(t, chartRender{release: "external-dns", namespace: "external-dns-cdk", values: values})
		c.apply(t, objs)
		d := deployment(t, objs)
		ctr := container(t, d)
		wantArgs(t, ctr.Args, "--provider=aws", "--aws-zone-type=public", "--leader-elect", "--domain-filter=example.com")
		if d.Spec.Template.Spec.ServiceAccountName != "external-dns-sa" || countKind(objs, "ServiceAccount") != 0 {
			t.Errorf("the ServiceAccount made by addServiceAccount must be used, not created: %q", d.Spec.Template.Spec.ServiceAccountName)
		}
		crb := typed[rbacv1.ClusterRoleBinding](t, find(t, objs, "ClusterRoleBinding", ""))
		if crb.Subjects[0].Name != "external-dns-sa" {
			t.Errorf("RBAC bound to %q", crb.Subjects[0].Name)
		}
		find(t, objs, "PodDisruptionBudget", "")
		wantSecureDefaults(t, d)
	})

	t.Run("namespaced", func(t *testing.T) {
		objs := mustHelmTemplate(t, chartRender{release: "zk", namespace: "team-a", values: homeLabValues, set: []string{"namespaced=true"}})
		c.apply(t, objs)
		wantArgs(t, container(t, deployment(t, objs)).Args, "--namespace=team-a")
		rs := roles(t, objs)
		if _, ok := rs["Role/zk-zonekeeper"]; !ok {
			t.Fatalf("namespaced install has no Role: %v", kinds(objs))
		}
		nodes := rs["ClusterRole/zk-zonekeeper-nodes"]
		if len(rs) != 2 || len(nodes) != 1 || !slices.Equal(nodes[0].Resources, []string{"nodes"}) {
			t.Errorf("a namespaced install may only read nodes cluster-wide; roles: %+v", rs)
		}
	})
}

// TestChartRejectsBadValues checks that mistakes fail the render with a message naming the value,
// instead of producing a pod that crash-loops.
func TestChartRejectsBadValues(t *testing.T) {
	cases := map[string]struct {
		set  []string
		want string
	}{
		"prefix and suffix":     {[]string{"txtPrefix=a-", "txtSuffix=-b"}, "txtPrefix and txtSuffix are mutually exclusive"},
		"unknown source":        {[]string{"sources={service,connector}"}, `sources: "connector" is not a zonekeeper source`},
		"half a secret ref":     {[]string{"aws.credentials.accessKeyIDSecretRef.name=s", "aws.credentials.accessKeyIDSecretRef.key=k"}, "set both accessKeyIDSecretRef and secretAccessKeySecretRef"},
		"half literal keys":     {[]string{"aws.credentials.accessKey=AKIA"}, "set both accessKey and secretKey"},
		"pdb with both bounds":  {[]string{"podDisruptionBudget.enabled=true", "podDisruptionBudget.minAvailable=1"}, "set minAvailable or maxUnavailable, not both"},
		"provider without name": {[]string{"provider.name=null"}, "provider.name is required"},
		"rfc2136 literal secret": {[]string{"provider=rfc2136", "rfc2136.host=ns1", "rfc2136.zone=example.com", "rfc2136.tsigSecret=c2VjcmV0"},
			"rfc2136.tsigSecret: a literal secret is not accepted"},
		"rfc2136 half a secret ref": {[]string{"provider=rfc2136", "rfc2136.host=ns1", "rfc2136.zone=example.com", "rfc2136.tsigSecretSecretRef.name=s"},
			"rfc2136.tsigSecretSecretRef: set both name and key"},
		"rfc2136 without zone": {[]string{"provider=rfc2136", "rfc2136.host=ns1"}, "rfc2136.zone is required"},
		"pdns literal key":     {[]string{"provider=pdns", "pdns.server=http://pdns:8081", "pdns.apiKey=abc"}, "pdns.apiKey: a literal key is not accepted"},
		"pdns without server":  {[]string{"provider=pdns"}, "pdns.server (the PowerDNS API URL) is required"},
		"pdns with views":      {[]string{"provider=pdns", "pdns.server=http://pdns:8081", "views[0].name=internal"}, "PowerDNS has no views"},
		"pdns key given twice": {[]string{"provider=pdns", "pdns.server=http://pdns:8081", "pdns.apiKeySecretRef.name=s", "pdns.apiKeySecretRef.key=k",
			"env[0].name=EXTERNAL_DNS_PDNS_API_KEY", "env[0].value=x"}, "both set the PowerDNS API key"},
		"cloudflare without credentials": {[]string{"provider=cloudflare"}, "provider cloudflare needs credentials"},
		"cloudflare literal token":       {[]string{"provider=cloudflare", "cloudflare.apiToken=abc"}, "a literal credential is not accepted"},
		"cloudflare key without email": {[]string{"provider=cloudflare", "cloudflare.apiKeySecretRef.name=s", "cloudflare.apiKeySecretRef.key=k"},
			"cloudflare.apiKeySecretRef needs cloudflare.apiEmail"},
		"cloudflare token given twice": {[]string{"provider=cloudflare", "cloudflare.apiTokenSecretRef.name=s", "cloudflare.apiTokenSecretRef.key=k",
			"env[0].name=CF_API_TOKEN", "env[0].value=x"}, "both set the Cloudflare token"},
		"cloudflare with two views": {[]string{"provider=cloudflare", "cloudflare.apiTokenSecretRef.name=s", "cloudflare.apiTokenSecretRef.key=k", "views[0].name=a", "views[1].name=b"},
			"views a, b: one Cloudflare account holds one copy of its zones"},
		"builtin without zones": {[]string{"provider=builtin"}, "builtin.zones (or domainFilters) is required"},
		"builtin on port 53":    {[]string{"provider=builtin", "domainFilters={a.example}", "builtin.containerPort=53"}, "use an unprivileged port"},
		"builtin leader election": {[]string{"provider=builtin", "domainFilters={a.example}", "leaderElection.enabled=true"},
			"a follower would answer from empty zones"},
		"builtin two default views": {[]string{"provider=builtin", "domainFilters={a.example}", "views[0].name=a", "views[1].name=b"},
			"exactly one view has no subnets"},
		"builtin axfr without key": {[]string{"provider=builtin", "domainFilters={a.example}", "builtin.axfrAllow={10.0.0.1/32=k}"},
			"builtin.axfrAllow needs builtin.tsigKeySecretRef"},
		"builtin bad service type": {[]string{"provider=builtin", "domainFilters={a.example}", "builtin.service.type=ExternalName"},
			`builtin.service.type "ExternalName"`},
		"view name":           {[]string{"views[0].name=Not A Word"}, `views[0].name "Not A Word": a view name is a plain lower-case word`},
		"view declared twice": {[]string{"views[0].name=a", "views[1].name=a"}, `views[1].name "a": declared twice`},
		"view targets":        {[]string{"views[0].name=a", "views[0].targets=wan"}, `views[0].targets "wan": must be reported or public`},
		"view ttl":            {[]string{"views[0].name=a", "views[0].ttl=0"}, "views[0].ttl: a TTL is a number of seconds"},
		"public without address": {[]string{"views[0].name=ext", "views[0].targets=public"},
			"a view has targets public; set publicAddress"},
		"shared etcd prefix": {[]string{"provider=coredns", "views[0].name=a", "views[0].coreDNSPrefix=/skydns/", "views[1].name=b", "views[1].coreDNSPrefix=/skydns/"},
			"views[1].coreDNSPrefix /skydns/: another view writes there"},
		"view rfc2136 on coredns": {[]string{"provider=coredns", "views[0].name=a", "views[0].rfc2136.tsigKeyName=k"}, "views[0].rfc2136: only for provider rfc2136"},
		"rfc2136 views without own keys": {[]string{"provider=rfc2136", "rfc2136.host=ns1", "rfc2136.zone=example.com", "views[0].name=a", "views[1].name=b"},
			"each view needs its own rfc2136.tsigKeyName and rfc2136.tsigSecretSecretRef"},
		"public address service ref": {[]string{"publicAddress.fromService=router"}, `publicAddress.fromService "router": want namespace/name`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := helmTemplate(t, chartRender{release: "bad", namespace: "dns", set: tc.set})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("want an error containing %q, got %v", tc.want, err)
			}
		})
	}
}
