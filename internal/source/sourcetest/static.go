package sourcetest

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/source"
)

// StaticEndpoints reads objs with kind's static source (as from a manifest, without an API server) and
// cfg; it returns the endpoints (as Describe lists them) and problems.
func StaticEndpoints(t testing.TB, kind source.Kind, cfg source.Config, objs ...*unstructured.Unstructured) ([]string, []endpoint.Problem) {
	t.Helper()
	src, err := kind.Static.New(cfg, objs)
	if err != nil {
		t.Fatal(err)
	}
	res, err := src.Endpoints(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return Describe(res.Endpoints), res.Problems
}
