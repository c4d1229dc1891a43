package deploy

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/zonekeeper/zonekeeper/internal/app"
	"github.com/zonekeeper/zonekeeper/internal/registry/crd"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// With registry: crd the chart passes --crd-registry-namespace and grants a Role on dnsrecords in that
// namespace alone; zonekeeper runs with it as the chart's ServiceAccount (DNSRecords written, Ready), and
// each of the two rules is needed: without the dnsrecords rule the run fails naming dnsrecords,
// without the status rule the objects never get their Ready condition.
func TestChartCRDRegistryRBACLive(t *testing.T) {
	c := startCluster(t)
	testbed.InstallCRDFile(t, c.kube, repoPath(t, "config/crd/dnsrecords.externaldns.k8s.io.yaml"))
	objs := mustHelmTemplate(t, chartRender{release: rbacRelease, namespace: rbacNamespace, values: rbacValues + "registry: crd\ncrdRegistryNamespace: dns-records\n"})
	c.ensureNamespace(t, "dns-records")
	c.apply(t, objs)
	args := container(t, deployment(t, objs)).Args
	wantArgs(t, args, "--registry=crd", "--crd-registry-namespace=dns-records")
	role := typed[rbacv1.Role](t, find(t, objs, "Role", "zk-zonekeeper-registry"))
	if role.Namespace != "dns-records" {
		t.Fatalf("the registry Role is in %q, want dns-records", role.Namespace)
	}
	sa := c.impersonate(t, rbacNamespace, "zk-zonekeeper")
	admin := c.kube.Client(t)
	createWorkload(t, c, admin)
	records := c.dynamic.Resource(crd.Resource).Namespace("dns-records")

	readyRecords := func() (all, ready int) {
		l, err := records.List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range l.Items {
			conds, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
			for _, cond := range conds {
				if m, _ := cond.(map[string]any); m["type"] == "Ready" && m["status"] == "True" {
					ready++
				}
			}
		}
		return len(l.Items), ready
	}
	// The inmemory provider starts empty at every run, so a second run writes over DNSRecords that
	// exist: create (refused as existing), get and update.
	for run := range 2 {
		code, stdout, stderr := runRegistryOnce(t, sa)
		if code != 0 || !strings.Contains(stdout, "web.example.com.") {
			t.Fatalf("run %d as the chart's ServiceAccount: exit %d\n%s\n%s", run, code, stdout, stderr)
		}
		if all, ready := readyRecords(); all != 2 || ready != 2 {
			t.Fatalf("run %d: %d DNSRecords, %d Ready, want 2 and 2\n%s", run, all, ready, stderr)
		}
	}

	t.Run("without-dnsrecords", func(t *testing.T) {
		withoutRoleRule(t, c, sa, role, "dnsrecords", access{verb: "list", group: "externaldns.k8s.io", resource: "dnsrecords", namespace: "dns-records"}, func() {
			code, _, stderr := runRegistryOnce(t, sa)
			if code == 0 || !strings.Contains(stderr, "dnsrecords") {
				t.Fatalf("exit %d without the dnsrecords rule:\n%s", code, stderr)
			}
		})
	})
	t.Run("without-dnsrecords-status", func(t *testing.T) {
		if err := records.DeleteCollection(context.Background(), metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
			t.Fatal(err)
		}
		withoutRoleRule(t, c, sa, role, "dnsrecords/status", access{verb: "update", group: "externaldns.k8s.io", resource: "dnsrecords", subresource: "status", namespace: "dns-records"}, func() {
			code, _, stderr := runRegistryOnce(t, sa)
			all, ready := readyRecords()
			if code != 0 || all != 2 || ready != 0 || !strings.Contains(stderr, "DNSRecord status not written") {
				t.Fatalf("without the status rule: exit %d, %d DNSRecords, %d Ready\n%s", code, all, ready, stderr)
			}
		})
	})
}

func runRegistryOnce(t *testing.T, sa *serviceAccountIdentity) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := app.Main(ctx, []string{
		"--kubeconfig=" + sa.kubeconfig, "--source=service", "--source=ingress", "--provider=inmemory",
		"--txt-owner-id=rbac-test", "--policy=sync", "--once", "--registry=crd", "--crd-registry-namespace=dns-records",
	}, &stdout, &stderr, func(string) string { return "" })
	return code, stdout.String(), stderr.String()
}

// withoutRoleRule runs f while the Role lacks its rule on resource.
func withoutRoleRule(t *testing.T, c *cluster, sa *serviceAccountIdentity, role *rbacv1.Role, resource string, probe access, f func()) {
	t.Helper()
	roles := c.kube.Client(t).RbacV1().Roles(role.Namespace)
	ctx := context.Background()
	orig, err := roles.Get(ctx, role.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	reduced := orig.DeepCopy()
	reduced.Rules = slices.DeleteFunc(reduced.Rules, func(r rbacv1.PolicyRule) bool { return slices.Contains(r.Resources, resource) })
	if len(reduced.Rules) != len(orig.Rules)-1 {
		t.Fatalf("the Role has no single rule on %s: %v", resource, orig.Rules)
	}
	if _, err := roles.Update(ctx, reduced, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	c.waitAllowed(t, sa, probe, false)
	defer func() {
		cur, err := roles.Get(ctx, role.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cur.Rules = orig.Rules
		if _, err := roles.Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		c.waitAllowed(t, sa, probe, true)
	}()
	f()
}
