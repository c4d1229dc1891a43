package deploy

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/zonekeeper/zonekeeper/internal/config"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
	"github.com/zonekeeper/zonekeeper/internal/view"
)

// TestManifestOverlays renders each kustomize overlay in deploy/manifests, applies it to a real
// kube-apiserver, and checks the setup it stands for.
func TestManifestOverlays(t *testing.T) {
	c := startCluster(t)
	overlays := map[string]func(t *testing.T, ctr corev1.Container, sa *corev1.ServiceAccount){
		"aws-irsa": func(t *testing.T, ctr corev1.Container, sa *corev1.ServiceAccount) {
			if sa.Annotations["eks.amazonaws.com/role-arn"] == "" {
				t.Error("ServiceAccount lacks eks.amazonaws.com/role-arn")
			}
			wantArgs(t, ctr.Args, "--provider=aws", "--aws-zone-type=public", "--policy=sync")
			wantEnvValue(t, ctr, "AWS_REGION", "eu-west-1")
			if _, ok := envVar(ctr, "AWS_ACCESS_KEY_ID"); ok {
				t.Error("IRSA needs no static keys")
			}
		},
		"aws-static-keys": func(t *testing.T, ctr corev1.Container, _ *corev1.ServiceAccount) {
			wantArgs(t, ctr.Args, "--provider=aws", "--policy=upsert-only", "--txt-prefix=prefix_")
			wantSecretEnv(t, ctr, "AWS_ACCESS_KEY_ID", "zonekeeper-aws-credentials", "aws_access_key_id")
			wantSecretEnv(t, ctr, "AWS_SECRET_ACCESS_KEY", "zonekeeper-aws-credentials", "aws_secret_access_key")
		},
		"coredns-homelab": func(t *testing.T, ctr corev1.Container, _ *corev1.ServiceAccount) {
			// The split horizon of docs/split-horizon.md: two views, two etcd prefixes, the public
			// address from an echo URL with STUN behind it.
			wantArgs(t, ctr.Args, "--provider=coredns", "--policy=sync", "--domain-filter=example.com",
				"--view=internal", "--view-coredns-prefix=internal=/skydns/",
				"--view=external", "--view-coredns-prefix=external=/external/", "--view-targets=external=public",
				"--view-ttl=external=900", "--view-exclude-domains=external=lan.example.com",
				"--public-ip-echo-url=https://ifconfig.me/ip", "--public-ip-stun-server=stun.cloudflare.com:3478")
			wantEnvValue(t, ctr, "ETCD_URLS", "http://etcd.dns.svc.cluster.local:2379")
			specs := wantViews(t, ctr.Args, map[string]string{"ETCD_URLS": "http://etcd.dns.svc.cluster.local:2379"})
			if len(specs) != 2 || specs[0].CoreDNSPrefix == specs[1].CoreDNSPrefix {
				t.Errorf("want two views with their own etcd prefixes, got %+v", specs)
			}
		},
		"builtin-homelab": func(t *testing.T, ctr corev1.Container, _ *corev1.ServiceAccount) {
			wantArgs(t, ctr.Args, "--provider=builtin", "--builtin-listen=:5353", "--builtin-zone=example.com",
				"--view=internal", "--view-subnets=internal=192.168.0.0/16,10.42.0.0/16",
				"--view=external", "--view-targets=external=public", "--view-ttl=external=300",
				"--view-exclude-domains=external=lan.example.com", "--public-ip-stun-server=stun.cloudflare.com:3478")
			specs := wantViews(t, ctr.Args, nil)
			withoutSubnets := 0
			for _, s := range specs {
				if len(s.Subnets) == 0 {
					withoutSubnets++
				}
			}
			if withoutSubnets != 1 {
				t.Errorf("the built-in server needs exactly one view without subnets, got %+v", specs)
			}
		},
	}
	for name, check := range overlays {
		t.Run(name, func(t *testing.T) {
			objs := kustomize(t, "deploy/manifests/overlays/"+name)
			c.apply(t, objs)
			d := deployment(t, objs)
			if d.Namespace != "zonekeeper" {
				t.Errorf("deployment namespace = %q", d.Namespace)
			}
			ctr := container(t, d)
			for _, flag := range []string{"provider", "policy", "txt-owner-id", "registry"} {
				if n := len(argValues(ctr.Args, flag)); n != 1 {
					t.Errorf("--%s given %d times: %v", flag, n, ctr.Args)
				}
			}
			wantSecureDefaults(t, d)
			checkFlagsKnown(t, ctr.Args)
			sa := typed[corev1.ServiceAccount](t, find(t, objs, "ServiceAccount", "zonekeeper"))
			crb := typed[rbacv1.ClusterRoleBinding](t, find(t, objs, "ClusterRoleBinding", "zonekeeper"))
			if len(crb.Subjects) != 1 || crb.Subjects[0].Name != sa.Name || crb.Subjects[0].Namespace != sa.Namespace {
				t.Errorf("ClusterRoleBinding subjects %+v do not name the ServiceAccount %s/%s", crb.Subjects, sa.Namespace, sa.Name)
			}
			check(t, ctr, sa)
		})
	}

	t.Run("builtin-homelab-dns-service", func(t *testing.T) {
		objs := kustomize(t, "deploy/manifests/overlays/builtin-homelab")
		svc := typed[corev1.Service](t, find(t, objs, "Service", "zonekeeper-dns"))
		if svc.Spec.Type != corev1.ServiceTypeLoadBalancer || svc.Spec.ExternalTrafficPolicy != corev1.ServiceExternalTrafficPolicyLocal {
			t.Errorf("DNS Service: want LoadBalancer with externalTrafficPolicy Local (the client address picks the view), got %+v", svc.Spec)
		}
		wantDNSServicePorts(t, svc)
		d := deployment(t, objs)
		if !maps.Equal(svc.Spec.Selector, d.Spec.Selector.MatchLabels) {
			t.Errorf("DNS Service selector %v does not select the pods (%v)", svc.Spec.Selector, d.Spec.Selector.MatchLabels)
		}
		if s := d.Spec.Strategy; s.Type != "RollingUpdate" || s.RollingUpdate == nil || s.RollingUpdate.MaxUnavailable.IntValue() != 0 {
			t.Errorf("strategy = %+v, want RollingUpdate with maxUnavailable 0", s)
		}

		// The overlay's command line runs as the overlay's ServiceAccount: only the listen address moves
		// to loopback and the public-address lookups (which would leave this machine) become a fixed
		// address.
		var args []string
		for _, a := range container(t, d).Args {
			switch {
			case strings.HasPrefix(a, "--builtin-listen="):
				a = fmt.Sprintf("--builtin-listen=127.0.0.1:%d", testbed.FreePort(t))
			case strings.HasPrefix(a, "--public-ip-"):
				continue
			}
			args = append(args, a)
		}
		sa := c.impersonate(t, "zonekeeper", "zonekeeper")
		code, _, stderr := runArgsOnce(t, sa, append(args, "--public-ip=203.0.113.7"), 20*time.Second)
		if code != 0 {
			t.Errorf("the overlay's command line exited %d\n%s", code, stderr)
		}
	})
}

// wantViews parses a command line as zonekeeper does and returns its views, failing the test on a
// flag or view error.
func wantViews(t testing.TB, args []string, env map[string]string) []view.Spec {
	t.Helper()
	cfg, _, err := config.Parse("zonekeeper", args, func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatalf("zonekeeper rejects the command line %v: %v", args, err)
	}
	specs, err := view.Flags{Names: cfg.Views, Targets: cfg.ViewTargets, TTL: cfg.ViewTTL, DomainFilter: cfg.ViewDomainFilter,
		ExcludeDomains: cfg.ViewExcludeDomains, CoreDNSPrefix: cfg.ViewCoreDNSPrefix, Subnets: cfg.ViewSubnets}.Specs()
	if err != nil {
		t.Fatalf("views: %v", err)
	}
	return specs
}

// TestManifestRBACMatchesChart keeps the plain manifests' ClusterRole equal to what the chart grants for
// the same sources, so the RBAC tests on the chart cover both.
func TestManifestRBACMatchesChart(t *testing.T) {
	chart := roles(t, mustHelmTemplate(t, chartRender{release: "zonekeeper", namespace: "zonekeeper", set: []string{"sources={service,ingress}"}}))
	manifests := roles(t, kustomize(t, "deploy/manifests/base"))
	got, want := manifests["ClusterRole/zonekeeper"], chart["ClusterRole/zonekeeper"]
	if len(want) == 0 || !slices.EqualFunc(got, want, func(a, b rbacv1.PolicyRule) bool {
		return slices.Equal(a.APIGroups, b.APIGroups) && slices.Equal(a.Resources, b.Resources) &&
			slices.Equal(a.Verbs, b.Verbs) && slices.Equal(a.ResourceNames, b.ResourceNames)
	}) {
		t.Errorf("deploy/manifests ClusterRole differs from the chart's:\nmanifests: %+v\nchart:     %+v", got, want)
	}
}
