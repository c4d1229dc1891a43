package kube

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// A factory hands out one informer per Go type, as client-go's did: the service source adds its
// indexes to the informer other parts of the source read.
func TestFactorySharesOneInformerPerType(t *testing.T) {
	f := NewFactory(nil, "", nil)
	if f.Services() != f.Services() || f.Nodes() != f.Nodes() {
		t.Fatal("a second call made a second informer")
	}
	if f.Services() == f.Nodes() || f.Pods() == f.Namespaces() || f.EndpointSlices() == f.Ingresses() {
		t.Fatal("two resources share an informer")
	}
	if _, ok := f.Services().GetIndexer().GetIndexers()[cache.NamespaceIndex]; !ok {
		t.Fatal("no namespace index")
	}
	// The first caller's indexers are the informer's (the Ingress source asks for none).
	g := NewFactory(nil, "", nil)
	bare := g.ResourceWith(Networking, "ingresses", &networkingv1.Ingress{}, cache.Indexers{})
	if g.Ingresses() != bare || len(bare.GetIndexer().GetIndexers()) != 0 {
		t.Fatal("Ingresses() after ResourceWith is another informer or has indexes")
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "web"}}
	if err := f.Services().GetIndexer().Add(svc); err != nil {
		t.Fatal(err)
	}
	if got, err := f.ServiceLister().Services("a").Get("web"); err != nil || got != svc {
		t.Fatalf("lister: %v %v", got, err)
	}
}
