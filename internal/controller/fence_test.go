package controller

import (
	"context"
	"errors"
	"testing"
)

// A reconcile whose write fence refuses (the Lease went stale) writes nothing and fails; once the fence
// allows it again, the next reconcile writes the change.
func TestWriteFenceHoldsWrites(t *testing.T) {
	src := &listSource{}
	src.set(nil, a("web.example.com", "192.0.2.1", "service/default/web"))
	c, p, _ := newTestController(t, src, Settings{})
	stale := errors.New("the Lease is stale")
	fenceErr := stale
	ctx := WithWriteFence(context.Background(), func() error { return fenceErr })
	if _, err := c.RunOnce(ctx); !errors.Is(err, stale) {
		t.Fatalf("reconcile behind a closed fence: err %v, want the fence's", err)
	}
	if got := records(t, p); len(got) != 0 {
		t.Fatalf("written behind a closed fence: %v", got)
	}
	fenceErr = nil
	if _, err := c.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if got := records(t, p); got["web.example.com A"] != "192.0.2.1" {
		t.Fatalf("records after the fence opened: %v", got)
	}
}
