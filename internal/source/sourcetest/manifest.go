package sourcetest

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/zonekeeper/zonekeeper/internal/source"
)

// ManifestMatchesCluster writes objs to a manifest file and checks, kind by kind and for each of cfgs,
// that the manifest source (zonekeeper plan, --source=manifest) gives the records the kind's cluster
// source gives over env, and reports every problem the cluster source reports (issue 10 item 6).
func ManifestMatchesCluster(t *testing.T, env source.Env, objs []*unstructured.Unstructured, kinds []source.Kind, cfgs []source.Config) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "objects.yaml")
	var docs []byte
	for _, u := range objs {
		js, err := u.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		docs = append(append(docs, js...), "\n---\n"...)
	}
	if err := os.WriteFile(path, docs, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, kind := range kinds {
		for _, cfg := range cfgs {
			_, live, liveProblems := Endpoints(t, kind, env, cfg)
			m, err := source.NewManifestWith(path, cfg, []source.Kind{kind})
			if err != nil {
				t.Fatal(err)
			}
			res, err := m.Endpoints(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if got := Describe(res.Endpoints); !reflect.DeepEqual(got, live) {
				t.Errorf("%s %+v from a manifest:\n%s\nfrom the cluster:\n%s", kind.Name, cfg, strings.Join(got, "\n"), strings.Join(live, "\n"))
			}
			mp := Problems(res.Problems)
			for _, p := range liveProblems {
				if !strings.Contains(mp, p.Error()) {
					t.Errorf("%s %+v: the manifest's problems lack %q:\n%s", kind.Name, cfg, p.Error(), mp)
				}
			}
		}
	}
}
