package controller

import (
	"context"
	"sync"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/source"
)

// countingNotifier counts what objects are told.
type countingNotifier struct {
	mu                  sync.Mutex
	invalid, conflicts  map[string]int
	published, rejected int
}

func (n *countingNotifier) Published(string, []*endpoint.Endpoint) {}
func (n *countingNotifier) Rejected(string, *endpoint.Endpoint, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.rejected++
}
func (n *countingNotifier) Conflict(resource, _ string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.conflicts[resource]++
}
func (n *countingNotifier) InvalidInput(p endpoint.Problem) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.invalid[p.Object.Name]++
}

// An event's run knows the problems and conflicts of the names it planned only. It must not make the
// controller forget the others: a full run after it would report them again, as new (a second
// Kubernetes Event on the object for the same malformed annotation or conflict, at every resync
// after any event).
func TestEventRunKeepsWhatOtherObjectsWereToldOnce(t *testing.T) {
	w := newPropertyWorld(t, 1)
	n := &countingNotifier{invalid: map[string]int{}, conflicts: map[string]int{}}
	w.c.settings.Notifier = n
	put := func(name, host string, ann map[string]string) {
		t.Helper()
		ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Annotations: ann},
			Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: host}}},
			Status: networkingv1.IngressStatus{LoadBalancer: networkingv1.IngressLoadBalancerStatus{
				Ingress: []networkingv1.IngressLoadBalancerIngress{{IP: "192.0.2.1"}}}}}
		if err := w.store.Update(ing); err != nil {
			t.Fatal(err)
		}
	}
	put("bad", "bad.example.com", map[string]string{source.PrefixGA + "ttl": "soon"})
	put("first", "shared.example.com", nil)
	put("second", "shared.example.com", map[string]string{source.PrefixGA + "ttl": "60"})
	ctx := context.Background()
	if _, err := w.c.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if n.invalid["bad"] != 1 || len(n.conflicts) != 1 {
		t.Fatalf("after the first run: invalid %v, conflicts %v; want one each", n.invalid, n.conflicts)
	}
	put("other", "other.example.com", nil)
	w.c.dirty.mark("ingress/default/other")
	if r := w.runEvent(ctx, 1); r.Scope == nil {
		t.Fatal("the event's run planned everything")
	}
	if _, err := w.c.RunOnce(ctx); err != nil { // a resync
		t.Fatal(err)
	}
	if n.invalid["bad"] != 1 {
		t.Errorf("the malformed annotation was reported %d times, want once", n.invalid["bad"])
	}
	for resource, times := range n.conflicts {
		if times != 1 {
			t.Errorf("the conflict of %s was reported %d times, want once", resource, times)
		}
	}
}
