package sourcetest

import (
	"context"
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
