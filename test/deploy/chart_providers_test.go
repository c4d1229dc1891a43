package deploy

import (
	"io"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/config"
)

// Value sets for the providers, views and public address added after external-dns parity.
var (
	// CoreDNS split horizon, as docs/split-horizon.md sets it up: two views, two etcd prefixes, the public
	// address from an echo URL with STUN as the fallback.
	splitHorizonCoreDNSValues = `
provider: coredns
env:
  - name: ETCD_URLS
    value: http://etcd.dns.svc.cluster.local:2379
sources: [service, ingress]
domainFilters: [example.com]
policy: sync
txtOwnerId: home
views:
  - name: internal
    coreDNSPrefix: /skydns/
  - name: external
    targets: public
    ttl: 900
    domainFilters: [example.com]
    excludeDomains: [lan.example.com]
    coreDNSPrefix: /external/
publicAddress:
  echoURL: https://ifconfig.me/ip
  stunServer: stun.cloudflare.com:3478
  static: [203.0.113.7]
  refreshInterval: 5m
`
	// BIND with two views, each selected by its own TSIG key, every secret from one Secret.
	rfc2136ViewsValues = `
provider: rfc2136
sources: [ingress]
txtOwnerId: bind
policy: sync
rfc2136:
  host: [ns1.dns.svc, ns2.dns.svc]
  port: 5353
  zone: example.com
  tsigKeyname: zonekeeper
  tsigSecretAlg: hmac-sha256
  tsigSecretSecretRef: {name: bind-keys, key: zonekeeper.key}
  tsigAxfr: true
  minTTL: 60s
  batchChangeSize: 50
  useTls: true
  skipTlsVerify: true
views:
  - name: internal
    rfc2136: {tsigKeyName: internal-key, tsigSecretSecretRef: {name: bind-keys, key: internal.key}}
  - name: external
    targets: public
    ttl: 900
    rfc2136: {tsigKeyName: external-key, tsigSecretSecretRef: {name: bind-view-keys, key: external.key}}
publicAddress:
  fromNode: edge-1
  allowPrivate: true
  refreshInterval: 2m
`
	pdnsSecretRefValues = `
provider: pdns
txtOwnerId: pdns
pdns:
  server: http://pdns.dns.svc:8081
  serverId: localhost
  apiKeySecretRef: {name: pdns-api, key: api-key}
`
	// What external-dns chart users write today: the key through env with a secretKeyRef, the server in
	// extraArgs.
	pdnsEnvValues = `
provider:
  name: pdns
txtOwnerId: pdns
pdns:
  server: http://pdns.dns.svc:8081
env:
  - name: EXTERNAL_DNS_PDNS_API_KEY
    valueFrom:
      secretKeyRef: {name: pdns-api, key: api-key}
`
	// Cloudflare with the token from an existing Secret, as docs/cloudflare.md sets it up.
	cloudflareValues = `
provider: cloudflare
txtOwnerId: home
txtPrefix: "%{record_type}-"
domainFilters: [example.com]
cloudflare:
  apiTokenSecretRef: {name: cloudflare-api, key: token}
  proxied: true
  recordComment: managed by zonekeeper
  dnsRecordsPerPage: 500
  batchChangeSize: 100
  regionKey: eu
`
	// What external-dns chart users write today: provider cloudflare, the token through env.
	cloudflareEnvValues = `
provider:
  name: cloudflare
txtOwnerId: home
env:
  - name: CF_API_TOKEN
    valueFrom:
      secretKeyRef: {name: cloudflare-api, key: token}
extraArgs:
  cloudflare-proxied: true
`
	// The built-in server for a home lab: two views, a static zone file for every view and one for the
	// internal view, AXFR to a secondary with a TSIG key, a LoadBalancer DNS Service, two replicas.
	builtinValues = `
provider: builtin
sources: [service, ingress]
domainFilters: [example.com]
policy: sync
txtOwnerId: home
replicaCount: 2
views:
  - name: internal
    subnets: [192.168.0.0/16, 10.42.0.0/16]
  - name: external
    targets: public
    ttl: 300
    excludeDomains: [lan.example.com]
publicAddress:
  stunServer: stun.cloudflare.com:3478
builtin:
  zones: [example.com]
  nameServers: [ns1.example.com]
  zoneFiles:
    - {configMap: static-zones, key: example.com.zone}
    - {configMap: static-zones, key: vpn.zone, view: internal}
  axfrAllow: [192.168.1.53/32=xfr-key]
  notify: [192.168.1.53=xfr-key]
  tsigKeySecretRef: {name: xfr-key, key: xfr.key}
  service:
    type: LoadBalancer
    loadBalancerIP: 192.168.1.53
    annotations: {metallb.universe.tf/allow-shared-ip: dns}
`
)

// TestChartProviderValueSets renders the chart for the providers, views and public address, applies the
// result to a real kube-apiserver with strict field validation, and checks the arguments, the mounted
// files, the environment and the ports; zonekeeper's own parser must accept every command line.
func TestChartProviderValueSets(t *testing.T) {
	c := startCluster(t)

	t.Run("split-horizon-coredns", func(t *testing.T) {
		objs := mustHelmTemplate(t, chartRender{release: "zonekeeper", namespace: "dns", values: splitHorizonCoreDNSValues})
		c.apply(t, objs)
		d := deployment(t, objs)
		args := container(t, d).Args
		wantArgs(t, args, "--provider=coredns",
			"--view=internal", "--view-coredns-prefix=internal=/skydns/",
			"--view=external", "--view-coredns-prefix=external=/external/", "--view-targets=external=public",
			"--view-ttl=external=900", "--view-domain-filter=external=example.com", "--view-exclude-domains=external=lan.example.com",
			"--public-ip=203.0.113.7", "--public-ip-echo-url=https://ifconfig.me/ip",
			"--public-ip-stun-server=stun.cloudflare.com:3478", "--public-ip-refresh-interval=5m")
		noArgPrefix(t, args, "--view-targets=internal")
		noArgPrefix(t, args, "--public-ip-from-")
		noArgPrefix(t, args, "--public-ip-allow-private")
		wantSecureDefaults(t, d)
		wantParses(t, args, map[string]string{"ETCD_URLS": "http://etcd:2379"})
		// No Node or Service lookup: no RBAC for either beyond the service source's own.
		if rs := roles(t, objs); len(rs) != 1 {
			t.Errorf("want only the sources' ClusterRole, got %v", kinds(objs))
		}
	})

	t.Run("rfc2136-views", func(t *testing.T) {
		objs := mustHelmTemplate(t, chartRender{release: "bind", namespace: "dns", values: rfc2136ViewsValues})
		c.apply(t, objs)
		d := deployment(t, objs)
		args := container(t, d).Args
		wantArgs(t, args, "--provider=rfc2136", "--rfc2136-host=ns1.dns.svc", "--rfc2136-host=ns2.dns.svc",
			"--rfc2136-port=5353", "--rfc2136-zone=example.com", "--rfc2136-tsig-keyname=zonekeeper",
			"--rfc2136-tsig-secret-alg=hmac-sha256", "--rfc2136-tsig-axfr", "--rfc2136-min-ttl=60s",
			"--rfc2136-batch-change-size=50", "--rfc2136-use-tls", "--rfc2136-skip-tls-verify",
			"--view-rfc2136-tsig-keyname=internal=internal-key", "--view-rfc2136-tsig-keyname=external=external-key",
			"--public-ip-from-node=edge-1", "--public-ip-allow-private", "--public-ip-refresh-interval=2m")
		noArgPrefix(t, args, "--rfc2136-tsig-secret=")
		wantFileArg(t, d, "rfc2136-tsig-secret-file", "", fileSource{"Secret", "bind-keys", "zonekeeper.key"})
		wantFileArg(t, d, "view-rfc2136-tsig-secret-file", "internal", fileSource{"Secret", "bind-keys", "internal.key"})
		wantFileArg(t, d, "view-rfc2136-tsig-secret-file", "external", fileSource{"Secret", "bind-view-keys", "external.key"})
		for _, e := range container(t, d).Env {
			if e.Value != "" && e.Name != "POD_NAMESPACE" {
				t.Errorf("unexpected literal env %s", e.Name)
			}
		}
		wantSecureDefaults(t, d)
		wantParses(t, args, nil)
		// fromNode: get on that Node only.
		node := roles(t, objs)["ClusterRole/bind-zonekeeper-public-address"]
		if len(node) != 1 || !slices.Equal(node[0].Resources, []string{"nodes"}) || !slices.Equal(node[0].ResourceNames, []string{"edge-1"}) ||
			!slices.Equal(node[0].Verbs, []string{"get"}) {
			t.Errorf("public-address ClusterRole = %+v, want get on nodes/edge-1", node)
		}
	})

	t.Run("pdns-api-key-secret-ref", func(t *testing.T) {
		objs := mustHelmTemplate(t, chartRender{release: "pdns", namespace: "dns", values: pdnsSecretRefValues})
		c.apply(t, objs)
		d := deployment(t, objs)
		ctr := container(t, d)
		wantArgs(t, ctr.Args, "--provider=pdns", "--pdns-server=http://pdns.dns.svc:8081", "--pdns-server-id=localhost")
		noArgPrefix(t, ctr.Args, "--pdns-api-key")
		wantSecretEnv(t, ctr, "EXTERNAL_DNS_PDNS_API_KEY", "pdns-api", "api-key")
		wantSecureDefaults(t, d)
		wantParses(t, ctr.Args, map[string]string{"EXTERNAL_DNS_PDNS_API_KEY": "from-the-secret"})
	})

	t.Run("pdns-env-passthrough", func(t *testing.T) {
		objs := mustHelmTemplate(t, chartRender{release: "pdns-env", namespace: "dns", values: pdnsEnvValues})
		c.apply(t, objs)
		ctr := container(t, deployment(t, objs))
		wantArgs(t, ctr.Args, "--provider=pdns", "--pdns-server=http://pdns.dns.svc:8081")
		wantSecretEnv(t, ctr, "EXTERNAL_DNS_PDNS_API_KEY", "pdns-api", "api-key")
		n := 0
		for _, e := range ctr.Env {
			if e.Name == "EXTERNAL_DNS_PDNS_API_KEY" {
				n++
			}
		}
		if n != 1 {
			t.Errorf("EXTERNAL_DNS_PDNS_API_KEY set %d times", n)
		}
	})

	t.Run("cloudflare-token-secret-ref", func(t *testing.T) {
		objs := mustHelmTemplate(t, chartRender{release: "cf", namespace: "dns", values: cloudflareValues})
		c.apply(t, objs)
		d := deployment(t, objs)
		ctr := container(t, d)
		wantArgs(t, ctr.Args, "--provider=cloudflare", "--cloudflare-proxied", "--cloudflare-record-comment=managed by zonekeeper",
			"--cloudflare-dns-records-per-page=500", "--batch-change-size=100", "--cloudflare-region-key=eu")
		wantSecretEnv(t, ctr, "CF_API_TOKEN", "cloudflare-api", "token")
		for _, e := range ctr.Env {
			if e.Name == "CF_API_KEY" || e.Name == "CF_API_EMAIL" || e.Name == "CLOUDFLARE_BASE_URL" {
				t.Errorf("unasked %s in the environment", e.Name)
			}
		}
		wantSecureDefaults(t, d)
		wantParses(t, ctr.Args, map[string]string{"CF_API_TOKEN": "from-the-secret"})
	})

	t.Run("cloudflare-env-passthrough", func(t *testing.T) {
		objs := mustHelmTemplate(t, chartRender{release: "cf-env", namespace: "dns", values: cloudflareEnvValues})
		c.apply(t, objs)
		ctr := container(t, deployment(t, objs))
		wantArgs(t, ctr.Args, "--provider=cloudflare")
		wantSecretEnv(t, ctr, "CF_API_TOKEN", "cloudflare-api", "token")
		n := 0
		for _, e := range ctr.Env {
			if e.Name == "CF_API_TOKEN" {
				n++
			}
		}
		if n != 1 {
			t.Errorf("CF_API_TOKEN set %d times", n)
		}
		wantParses(t, ctr.Args, map[string]string{"CF_API_TOKEN": "from-the-secret"})
	})

	t.Run("builtin-loadbalancer", func(t *testing.T) {
		objs := mustHelmTemplate(t, chartRender{release: "zk", namespace: "dns", values: builtinValues})
		c.apply(t, objs)
		d := deployment(t, objs)
		ctr := container(t, d)
		wantArgs(t, ctr.Args, "--provider=builtin", "--builtin-listen=:5353", "--builtin-zone=example.com",
			"--builtin-ns=ns1.example.com", "--builtin-axfr-allow=192.168.1.53/32=xfr-key", "--builtin-notify=192.168.1.53=xfr-key",
			"--view=internal", "--view-subnets=internal=192.168.0.0/16,10.42.0.0/16",
			"--view=external", "--view-targets=external=public", "--view-ttl=external=300",
			"--public-ip-stun-server=stun.cloudflare.com:3478")
		wantFileArg(t, d, "builtin-zone-file", "", fileSource{"ConfigMap", "static-zones", "example.com.zone"})
		wantFileArg(t, d, "builtin-zone-file", "internal", fileSource{"ConfigMap", "static-zones", "vpn.zone"})
		wantFileArg(t, d, "builtin-tsig-key-file", "", fileSource{"Secret", "xfr-key", "xfr.key"})
		wantSecureDefaults(t, d) // includes the dns ports on 5353 and no added capability
		wantParses(t, ctr.Args, nil)

		// Two replicas, yet no leader election: each replica is a DNS server holding its own records.
		noArgPrefix(t, ctr.Args, "--leader-elect")
		if n := countKind(objs, "Role"); n != 0 {
			t.Errorf("builtin renders no leader-election Role, got %d Roles", n)
		}
		if s := d.Spec.Strategy; s.Type != "RollingUpdate" || s.RollingUpdate == nil || s.RollingUpdate.MaxUnavailable.IntValue() != 0 {
			t.Errorf("builtin keeps answering through a rollout: want RollingUpdate with maxUnavailable 0, got %+v", s)
		}

		svc := typed[corev1.Service](t, find(t, objs, "Service", "zk-zonekeeper-dns"))
		if svc.Spec.Type != corev1.ServiceTypeLoadBalancer || svc.Spec.LoadBalancerIP != "192.168.1.53" ||
			svc.Spec.ExternalTrafficPolicy != corev1.ServiceExternalTrafficPolicyLocal ||
			svc.Annotations["metallb.universe.tf/allow-shared-ip"] != "dns" {
			t.Errorf("DNS Service spec = %+v, annotations %v", svc.Spec, svc.Annotations)
		}
		wantDNSServicePorts(t, svc)
		live, err := c.kube.Client(t).CoreV1().Services("dns").Get(t.Context(), "zk-zonekeeper-dns", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		wantDNSServicePorts(t, live)
	})

	t.Run("builtin-clusterip", func(t *testing.T) {
		// 10.0.0.10 lies in the static band at the bottom of the test cluster's 10.0.0.0/24, which the
		// API server hands out to Services without a fixed IP only when the rest is used up. (10.0.0.53
		// was in the dynamic band: a CI run lost it to another Service's random allocation.)
		objs := mustHelmTemplate(t, chartRender{release: "zk-in", namespace: "dns", set: []string{
			"provider=builtin", "domainFilters={home.arpa}", "txtOwnerId=lab", "builtin.service.clusterIP=10.0.0.10"}})
		c.apply(t, objs)
		svc := typed[corev1.Service](t, find(t, objs, "Service", "zk-in-zonekeeper-dns"))
		if svc.Spec.Type != corev1.ServiceTypeClusterIP || svc.Spec.ExternalTrafficPolicy != "" || svc.Spec.ClusterIP != "10.0.0.10" {
			t.Errorf("ClusterIP DNS Service spec = %+v", svc.Spec)
		}
		wantDNSServicePorts(t, svc)
		d := deployment(t, objs)
		if d.Spec.Template.Spec.Volumes != nil {
			t.Errorf("no files configured, yet volumes %+v", d.Spec.Template.Spec.Volumes)
		}
		if d.Spec.Strategy.Type != "RollingUpdate" {
			t.Errorf("strategy = %q", d.Spec.Strategy.Type)
		}
		wantSecureDefaults(t, d)
	})

	t.Run("no-dns-service-without-builtin", func(t *testing.T) {
		objs := mustHelmTemplate(t, chartRender{release: "zk", namespace: "dns", values: homeLabValues})
		if n := countKind(objs, "Service"); n != 1 {
			t.Errorf("want only the metrics Service, got %v", kinds(objs))
		}
	})
}

// wantDNSServicePorts checks port 53 over UDP and TCP, each to the container port of its protocol.
func wantDNSServicePorts(t testing.TB, svc *corev1.Service) {
	t.Helper()
	got := map[corev1.Protocol]corev1.ServicePort{}
	for _, p := range svc.Spec.Ports {
		got[p.Protocol] = p
	}
	udp, tcp := got[corev1.ProtocolUDP], got[corev1.ProtocolTCP]
	if len(svc.Spec.Ports) != 2 || udp.Port != 53 || udp.TargetPort.String() != "dns" || tcp.Port != 53 || tcp.TargetPort.String() != "dns-tcp" {
		t.Errorf("DNS Service %s ports = %+v, want 53/UDP → dns and 53/TCP → dns-tcp", svc.Name, svc.Spec.Ports)
	}
}

// wantParses requires zonekeeper's flag parser to accept the whole command line, with env as the
// environment (every flag is also EXTERNAL_DNS_<FLAG>).
func wantParses(t testing.TB, args []string, env map[string]string) {
	t.Helper()
	checkFlagsKnown(t, args)
	if _, _, err := config.Parse("zonekeeper", args, func(k string) string { return env[k] }, io.Discard); err != nil {
		t.Errorf("zonekeeper rejects the chart's command line: %v\n%v", err, args)
	}
}
