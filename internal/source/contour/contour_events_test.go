package contour

import (
	"context"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/source/sourcetest"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// The custom-resource kinds built on source.CRDSource name their objects in their events: an
// HTTPProxy's update names it, and ObjectEndpoints of one of two HTTPProxies merged at one name covers
// both with what Endpoints publishes (the first in namespace/name order gives the TTL).
func TestHTTPProxyEventsNameTheirObject(t *testing.T) {
	_, dyn := sourcetest.StartCluster(t, testbed.InstallContour,
		proxy("default", "a", "shared.example.com", []string{"192.0.2.1"}, "ttl", "60"),
		proxy("default", "b", "shared.example.com", []string{"192.0.2.2"}),
	)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	built, err := Kind().New(ctx, source.Env{Dynamic: dyn, Config: source.Config{}})
	if err != nil {
		t.Fatal(err)
	}
	src, ok := built.(source.ObjectSource)
	if !ok || !slices.Equal(src.ObjectKinds(), []string{label}) {
		t.Fatalf("the HTTPProxy source is not an ObjectSource for %s (%T)", label, built)
	}
	named := make(chan string, 10)
	src.AddObjectHandler(func(r string) { named <- r })
	if _, err := src.Endpoints(ctx); err != nil {
		t.Fatal(err)
	}
	res := dyn.Resource(sourcetest.Resource(proxy("default", "b", "", nil))).Namespace("default")
	u, err := res.Get(ctx, "b", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_ = unstructured.SetNestedField(u.Object, "b.example.com", "spec", "virtualhost", "fqdn")
	if _, err := res.Update(ctx, u, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-named:
		if got != label+"/default/b" {
			t.Fatalf("the update's event names %q, want %s/default/b", got, label)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no event for the update")
	}
	got, err := src.ObjectEndpoints(ctx, []string{label + "/default/b"})
	if err != nil {
		t.Fatal(err)
	}
	full, err := src.Endpoints(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if g, w := sourcetest.Describe(got.Endpoints), sourcetest.Describe(full.Endpoints); !slices.Equal(g, w) || len(g) != 2 {
		t.Fatalf("ObjectEndpoints(b) %v; Endpoints %v", g, w)
	}
	if !slices.Equal(got.Objects, []string{label + "/default/a", label + "/default/b"}) {
		t.Fatalf("the answer covers %v; want both HTTPProxies (b had the shared name)", got.Objects)
	}
}
