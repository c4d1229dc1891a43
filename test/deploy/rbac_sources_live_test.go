package deploy

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/zonekeeper/zonekeeper/internal/app"
	sourcekinds "github.com/zonekeeper/zonekeeper/internal/source/kinds"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// TestChartRBACPerSourceLive proves the chart's RBAC kind by kind on a real API server with every
// third-party CRD installed from its project's module: the chart rendered with one source, applied, and
// zonekeeper run once as the release's ServiceAccount with that source succeeds; with any one of the
// source's read rules taken away it fails, naming the resource. (TestChartSourcesFollowTheKindsTable
// shows the rules are exactly what the kind declares; this shows that declaration is right.)
func TestChartRBACPerSourceLive(t *testing.T) {
	c := startCluster(t)
	for _, install := range []func(testing.TB, *testbed.KubeAPIServer) []string{
		testbed.InstallGatewayAPI, testbed.InstallIstio, testbed.InstallContour, testbed.InstallOpenShiftRoutes,
		testbed.InstallAmbassador, testbed.InstallGloo, testbed.InstallF5, testbed.InstallKong, testbed.InstallSkipper,
		func(t testing.TB, k *testbed.KubeAPIServer) []string { return testbed.InstallTraefik(t, k, false) },
	} {
		install(t, c.kube)
	}
	c.apply(t, decodeObjects(t, readFile(t, "charts/zonekeeper/crds/dnsendpoints.externaldns.k8s.io.yaml")))

	for _, kind := range sourcekinds.All() {
		if !kind.Cluster {
			continue
		}
		t.Run(kind.Name, func(t *testing.T) {
			release := "rb-" + strings.ReplaceAll(kind.Name, "-", "")
			if len(release) > 30 {
				release = release[:30]
			}
			ns := release + "-ns"
			objs := mustHelmTemplate(t, chartRender{release: release, namespace: ns,
				values: fmt.Sprintf("provider: inmemory\nsources: [%s]\ntxtOwnerId: rbac\n", kind.Name)})
			c.apply(t, objs)
			sa := c.impersonate(t, ns, release+"-zonekeeper")
			run := func(timeout time.Duration) (int, string) {
				code, _, stderr := runSourceOnce(t, sa, kind.Name, timeout)
				return code, stderr
			}
			if code, stderr := run(30 * time.Second); code != 0 {
				t.Fatalf("--source=%s as the chart's ServiceAccount exited %d:\n%s", kind.Name, code, tail(stderr, 3000))
			}
			role := typed[rbacv1.ClusterRole](t, find(t, objs, "ClusterRole", release+"-zonekeeper"))
			for i, rule := range role.Rules {
				if !slices.Equal(rule.Verbs, []string{"get", "list", "watch"}) || optionalRead(kind.Name, rule.Resources[0]) {
					continue
				}
				res := rule.Resources[0]
				probe := access{verb: "list", group: rule.APIGroups[0], resource: res}
				t.Run("without-"+res, func(t *testing.T) {
					withoutRule(t, c, sa, release+"-zonekeeper", i, probe, func() {
						code, stderr := run(10 * time.Second)
						if code == 0 {
							t.Fatalf("--source=%s succeeded without list/watch on %s: the rule is not needed", kind.Name, res)
						}
						if !strings.Contains(stderr, res) {
							t.Errorf("the failure does not name %s:\n%s", res, tail(stderr, 3000))
						}
					})
				})
			}
		})
	}
}

// optionalRead: resources a kind runs without (the service kind's endpointslices: headless Services are
// then not published, and the run succeeds).
func optionalRead(kind, resource string) bool {
	return kind == "service" && resource == "endpointslices"
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// runSourceOnce runs zonekeeper --once with one source as the ServiceAccount.
func runSourceOnce(t *testing.T, sa *serviceAccountIdentity, source string, timeout time.Duration) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := app.Main(ctx, []string{
		"--kubeconfig=" + sa.kubeconfig, "--source=" + source, "--provider=inmemory",
		"--txt-owner-id=rbac", "--policy=sync", "--once",
	}, &stdout, &stderr, func(string) string { return "" })
	return code, stdout.String(), stderr.String()
}
