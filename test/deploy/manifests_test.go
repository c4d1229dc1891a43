package deploy

import (
	"io"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/zonekeeper/zonekeeper/internal/config"
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
			wantArgs(t, ctr.Args, "--provider=coredns", "--policy=sync", "--domain-filter=home.arpa")
			wantEnvValue(t, ctr, "ETCD_URLS", "http://etcd.dns.svc.cluster.local:2379")
			getenv := func(k string) string {
				if k == "ETCD_URLS" {
					return "http://etcd.dns.svc.cluster.local:2379"
				}
				return ""
			}
			if _, _, err := config.Parse("zonekeeper", ctr.Args, getenv, io.Discard); err != nil {
				t.Errorf("zonekeeper rejects the overlay's command line %v: %v", ctr.Args, err)
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
