package testbed

import (
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TraefikModule is the Traefik release whose CRDs the tests install: its module ships the
// CustomResourceDefinitions of the traefik.io group (docs/content/reference/dynamic-configuration).
const TraefikModule = "github.com/traefik/traefik/v3@v3.6.12"

// traefikRouteCRDs are the files of the three route kinds in TraefikModule.
var traefikRouteCRDs = []string{"traefik.io_ingressroutes.yaml", "traefik.io_ingressroutetcps.yaml", "traefik.io_ingressrouteudps.yaml"}

// InstallTraefik installs the IngressRoute, IngressRouteTCP and IngressRouteUDP CRDs of TraefikModule
// (traefik.io), and with legacy the same three under the legacy group traefik.containo.us.
//
// The legacy CRDs are derived from the traefik.io ones by renaming the group: the module proxy does not
// serve github.com/traefik/traefik/v2 (the last release with traefik.containo.us CRDs, whose schemas
// v2.10+ kept identical to traefik.io's), and the sources read only metadata and spec.routes[].match.
func InstallTraefik(t testing.TB, k *KubeAPIServer, legacy bool) []string {
	t.Helper()
	root, err := moduleDir(TraefikModule)
	if err != nil {
		t.Fatal(err)
	}
	var crds []*unstructured.Unstructured
	for _, f := range traefikRouteCRDs {
		docs, err := crdDocuments(filepath.Join(root, "docs", "content", "reference", "dynamic-configuration", f))
		if err != nil || len(docs) != 1 {
			t.Fatalf("%s %s: %d CRDs, %v", TraefikModule, f, len(docs), err)
		}
		crds = append(crds, docs[0])
		if legacy {
			old := docs[0].DeepCopy()
			if err := unstructured.SetNestedField(old.Object, "traefik.containo.us", "spec", "group"); err != nil {
				t.Fatal(err)
			}
			old.SetName(strings.TrimSuffix(old.GetName(), ".traefik.io") + ".traefik.containo.us")
			crds = append(crds, old)
		}
	}
	return InstallCRDs(t, k.Config, TraefikModule, crds)
}
