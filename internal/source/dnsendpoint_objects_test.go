package source

import (
	"context"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// ObjectEndpoints of one DNSEndpoint answers for every DNSEndpoint sharing a name with it, merged as
// Endpoints merges them: the first in namespace/name order ("a" before "a-x", although the label
// "crd/a-x/…" sorts before "crd/a/…") gives the TTL; after that object is deleted, asking for it
// gives the other's record set alone.
func TestDNSEndpointObjectEndpointsMatchEndpoints(t *testing.T) {
	c, err := compile(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	store := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	put := func(namespace, name string, eps ...*endpoint.Endpoint) *unstructured.Unstructured {
		d := &DNSEndpoint{}
		d.APIVersion, d.Kind = "externaldns.k8s.io/v1alpha1", "DNSEndpoint"
		d.Namespace, d.Name = namespace, name
		d.Spec.Endpoints = eps
		obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(d)
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{Object: obj}
		if err := store.Add(u); err != nil {
			t.Fatal(err)
		}
		return u
	}
	one := put("a", "one", endpoint.NewWithTTL("shared.example.com", "A", 60, "192.0.2.1"))
	put("a-x", "two", endpoint.NewWithTTL("shared.example.com", "A", 120, "192.0.2.2"), endpoint.New("two.example.com", "A", "192.0.2.3"))
	put("b", "three", endpoint.New("three.example.com", "A", "192.0.2.4"))
	s := &DNSEndpointSource{c: c, lister: cache.NewGenericLister(store, DNSEndpointResource().GroupResource())}
	ctx := context.Background()
	if _, err := s.ObjectEndpoints(ctx, []string{"crd/a-x/two"}); err == nil {
		t.Fatal("ObjectEndpoints answered before the first full listing")
	}
	at := func(res Result, name string) []string {
		var out []string
		for _, e := range res.Endpoints {
			if e.DNSName == name {
				out = append(out, e.String()+" "+e.Resource())
			}
		}
		return out
	}
	check := func(asked string, wantObjects ...string) {
		t.Helper()
		got, err := s.ObjectEndpoints(ctx, []string{asked})
		if err != nil {
			t.Fatal(err)
		}
		full, err := (&DNSEndpointSource{c: c, lister: s.lister}).Endpoints(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := at(got, "shared.example.com"), at(full, "shared.example.com"); !slices.Equal(g, w) {
			t.Fatalf("asked for %s: %v at the shared name; Endpoints has %v", asked, g, w)
		}
		if !slices.Equal(got.Objects, wantObjects) {
			t.Fatalf("asked for %s: covers %v, want %v", asked, got.Objects, wantObjects)
		}
	}
	if _, err := s.Endpoints(ctx); err != nil {
		t.Fatal(err)
	}
	check("crd/a-x/two", "crd/a/one", "crd/a-x/two")
	if err := store.Delete(one); err != nil {
		t.Fatal(err)
	}
	check("crd/a/one", "crd/a/one", "crd/a-x/two")
	check("crd/a-x/two", "crd/a-x/two")
}
