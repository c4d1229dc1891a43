package kinds

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/source/sourcetest"
)

// Traefik routes, HTTPProxies and Routes in manifest files (zonekeeper plan, --source=manifest) give the
// records the cluster sources give; a legacy Traefik route is read only with --traefik-enable-legacy.
func TestCRDSourcesFromManifests(t *testing.T) {
	dir := t.TempDir()
	doc := "apiVersion: traefik.io/v1alpha1\nkind: IngressRoute\nmetadata:\n  name: web\n  namespace: apps\n" +
		"  annotations: {external-dns.alpha.kubernetes.io/target: 192.0.2.1}\n" +
		"spec:\n  routes: [{match: \"Host(`a.example.com`, `b.example.com`)\"}]\n---\n" +
		"apiVersion: traefik.containo.us/v1alpha1\nkind: IngressRouteTCP\nmetadata:\n  name: old\n" +
		"  annotations: {external-dns.alpha.kubernetes.io/target: 192.0.2.2}\n" +
		"spec:\n  routes: [{match: \"HostSNI(`old.example.com`)\"}]\n---\n" +
		"apiVersion: projectcontour.io/v1\nkind: HTTPProxy\nmetadata: {name: site, namespace: apps}\n" +
		"spec: {virtualhost: {fqdn: site.example.com}}\nstatus: {loadBalancer: {ingress: [{hostname: lb.example.net}]}}\n---\n" +
		"apiVersion: route.openshift.io/v1\nkind: Route\nmetadata: {name: shop, namespace: apps}\n" +
		"spec: {host: shop.example.com, to: {kind: Service, name: shop}}\n" +
		"status: {ingress: [{host: shop.example.com, routerName: default, routerCanonicalHostname: router.example.net, conditions: [{type: Admitted, status: \"True\"}]}]}\n"
	if err := os.WriteFile(filepath.Join(dir, "objects.yaml"), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(cfg source.Config) ([]string, string) {
		m, err := source.NewManifestWith(dir, cfg, static())
		if err != nil {
			t.Fatal(err)
		}
		res, err := m.Endpoints(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return sourcetest.Describe(res.Endpoints), sourcetest.Problems(res.Problems)
	}
	got, problems := run(source.Config{})
	want := []string{
		"a.example.com A 192.0.2.1 ingressroute/apps/web",
		"b.example.com A 192.0.2.1 ingressroute/apps/web",
		"shop.example.com CNAME router.example.net route/apps/shop",
		"site.example.com CNAME lb.example.net HTTPProxy/apps/site",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("from manifests:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(problems, "IngressRouteTCP default/old") || !strings.Contains(problems, "traefik.containo.us/v1alpha1") {
		t.Errorf("the legacy route is not reported as unread: %s", problems)
	}
	got, _ = run(source.Config{TraefikEnableLegacy: true, TraefikDisableNew: true, Namespace: "default"})
	if !reflect.DeepEqual(got, []string{"old.example.com A 192.0.2.2 ingressroutetcp/default/old"}) {
		t.Errorf("--traefik-enable-legacy --traefik-disable-new --namespace=default: %v", got)
	}
}
