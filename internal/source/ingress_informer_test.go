package source

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// indexRefusingStore is a store whose every index lookup is an error of the test: a reader served by
// it reads no index.
type indexRefusingStore struct {
	cache.Indexer
	t *testing.T
}

func (s indexRefusingStore) Index(name string, obj any) ([]any, error) {
	s.t.Errorf("the Ingress source read the %q index", name)
	return s.Indexer.Index(name, obj)
}

func (s indexRefusingStore) IndexKeys(name, value string) ([]string, error) {
	s.t.Errorf("the Ingress source read the %q index", name)
	return s.Indexer.IndexKeys(name, value)
}

func (s indexRefusingStore) ByIndex(name, value string) ([]any, error) {
	s.t.Errorf("the Ingress source read the %q index", name)
	return s.Indexer.ByIndex(name, value)
}

func (s indexRefusingStore) ListIndexFuncValues(name string) []string {
	s.t.Errorf("the Ingress source read the %q index", name)
	return s.Indexer.ListIndexFuncValues(name)
}

// TestIngressSourceReadsNoIndex: NewIngress's informer keeps no index, and the Ingress source needs
// none: every Ingress, one by its key (an event's), and one for an Event all come from a store whose
// index lookups fail the test, in more than one namespace.
func TestIngressSourceReadsNoIndex(t *testing.T) {
	if got := ingressInformer(newInformerFactory(nil, "")).GetIndexer().GetIndexers(); len(got) != 0 {
		t.Errorf("the Ingress informer keeps indexes %v", slices.Collect(maps.Keys(got)))
	}
	c, err := compile(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	store := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, ns := range []string{"team-a", "team-b"} {
		ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
			Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: "web." + ns + ".example.com"}}},
			Status: networkingv1.IngressStatus{LoadBalancer: networkingv1.IngressLoadBalancerStatus{
				Ingress: []networkingv1.IngressLoadBalancerIngress{{IP: "203.0.113.10"}}}}}
		obj, err := ingressTransform(c)(ing)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.Add(obj); err != nil {
			t.Fatal(err)
		}
	}
	s := &IngressSource{c: c, ingresses: storeIngresses{indexRefusingStore{store, t}}, live: true}
	ctx := context.Background()
	all, err := s.Endpoints(ctx)
	if err != nil {
		t.Fatal(err)
	}
	expectEndpoints(t, all.Endpoints, "web.team-a.example.com A 203.0.113.10 res=ingress/team-a/web",
		"web.team-b.example.com A 203.0.113.10 res=ingress/team-b/web")
	one, err := s.ObjectEndpoints(ctx, []string{"ingress/team-b/web"})
	if err != nil {
		t.Fatal(err)
	}
	expectEndpoints(t, one.Endpoints, "web.team-b.example.com A 203.0.113.10 res=ingress/team-b/web")
	if obj, ok := s.LookupObject("Ingress", "team-a", "web"); !ok || obj.(*networkingv1.Ingress).Namespace != "team-a" {
		t.Errorf("LookupObject(Ingress, team-a, web) = %v, %v", obj, ok)
	}
}

// TestIngressStoreWithoutNamespaceIndexBytes measures what the namespace index cost per cached
// Ingress (memIngress, decoded and trimmed as the informer does), and fails unless leaving it out
// saves at least 20 bytes an Ingress.
func TestIngressStoreWithoutNamespaceIndexBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap")
	}
	const n = 5000
	fill := func(indexers cache.Indexers) float64 {
		return heapPerObjectIndexed(t, n, indexers, func(idx cache.Indexer, i int) {
			wire, err := json.Marshal(memIngress(i))
			if err != nil {
				t.Fatal(err)
			}
			obj := &networkingv1.Ingress{}
			if err := json.Unmarshal(wire, obj); err != nil {
				t.Fatal(err)
			}
			o, err := trimObject(obj)
			if err != nil {
				t.Fatal(err)
			}
			if err := idx.Add(o); err != nil {
				t.Fatal(err)
			}
		})
	}
	with := fill(cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	without := fill(ingressInformer(newInformerFactory(nil, "")).GetIndexer().GetIndexers())
	t.Logf("cached Ingress: %.0f B with the namespace index, %.0f B as the Ingress informer keeps it", with, without)
	if without > with-20 {
		t.Errorf("%.0f bytes per cached Ingress without the index, %.0f with it: less than 20 saved", without, with)
	}
}
