package istio

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/source/istio/istiotest"
	"github.com/zonekeeper/zonekeeper/internal/source/sourcetest"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// Over the whole fixture and two VirtualServices merged at one name (in namespaces "twin" and "twin-x",
// whose labels sort the other way round: the first object's TTL must win), for every Gateway and every
// VirtualService, ObjectEndpoints of that object alone gives exactly what Endpoints publishes at every
// name of its answer, and covers every object publishing there; an object's update names it.
func TestIstioObjectEndpointsMatchEndpoints(t *testing.T) {
	objs := append(fixture(),
		istiotest.VirtualService("twin", "one", []string{"twin.apps.example.com"}, []string{"istio-system/public"}, nil, "ttl", "30"),
		istiotest.VirtualService("twin-x", "two", []string{"twin.apps.example.com"}, []string{"istio-system/public"}, nil, "ttl", "90"))
	api, _, dyn := sourcetest.StartClusterServer(t, testbed.InstallIstio, objs...)
	env := source.Env{Kube: api.Kube(t), Dynamic: dyn}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	for _, tc := range []struct {
		kind  source.Kind
		label string
	}{{GatewayKind(), "gateway"}, {VirtualServiceKind(), "virtualservice"}} {
		built, err := tc.kind.New(ctx, env)
		if err != nil {
			t.Fatal(err)
		}
		src, ok := built.(source.ObjectSource)
		if !ok || !slices.Equal(src.ObjectKinds(), []string{tc.label}) {
			t.Fatalf("%s is not an ObjectSource for %s", tc.kind.Name, tc.label)
		}
		full, err := src.Endpoints(ctx)
		if err != nil {
			t.Fatal(err)
		}
		fullLines := sourcetest.Describe(full.Endpoints)
		var resources []string
		for _, u := range objs {
			if strings.EqualFold(u.GetKind(), tc.label) {
				resources = append(resources, tc.label+"/"+u.GetNamespace()+"/"+u.GetName())
			}
		}
		if len(resources) == 0 {
			t.Fatalf("the fixture has no %s", tc.label)
		}
		sourcetest.ObjectEndpointsMatch(t, src, resources)
		if tc.label == "virtualservice" && !slices.Contains(fullLines, "twin.apps.example.com A 192.0.2.10 virtualservice/twin/one ttl=30") {
			t.Fatalf("the twins are not merged into the first one's record set: %q", fullLines)
		}
		if tc.label == "virtualservice" {
			named := make(chan string, 10)
			src.AddObjectHandler(func(r string) { named <- r })
			res := dyn.Resource(VirtualServiceResource).Namespace("team-a")
			u, err := res.Get(ctx, "bound", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			u.SetAnnotations(map[string]string{sourcetest.AnnotationPrefix + "ttl": "90"})
			if _, err := res.Update(ctx, u, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			select {
			case got := <-named:
				if got != "virtualservice/team-a/bound" {
					t.Fatalf("the update's event names %q", got)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("no event for the update")
			}
		}
	}
}
