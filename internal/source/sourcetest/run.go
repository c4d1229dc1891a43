package sourcetest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/source"
)

// Endpoints builds kind's source over env with cfg (its informers live until the test ends) and
// returns it with its endpoints (as Describe lists them) and problems.
func Endpoints(t testing.TB, kind source.Kind, env source.Env, cfg source.Config) (source.Source, []string, []endpoint.Problem) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	env.Config = cfg
	src, err := kind.New(ctx, env)
	if err != nil {
		t.Fatal(err)
	}
	res, err := src.Endpoints(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return src, Describe(res.Endpoints), res.Problems
}

// ManifestEndpoints writes yaml to a manifest file and reads it with kind's static source (zonekeeper
// plan, --source=manifest) and cfg; it returns the endpoints (as Describe lists them) and problems.
func ManifestEndpoints(t testing.TB, yaml string, kind source.Kind, cfg source.Config) ([]string, []endpoint.Problem) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "objects.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := source.NewManifestWith(path, cfg, []source.Kind{kind})
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Endpoints(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return Describe(res.Endpoints), res.Problems
}
