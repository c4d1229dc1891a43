package source

import (
	"testing"
	"unsafe"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestEndpointsShareTheObjectsStrings: an Ingress's endpoints hold the cached object's own strings for
// their name and targets when those are already normalised, rather than copies made while normalising
// them; the controller's index of them outlives the run, so a copy is memory held per object.
func TestEndpointsShareTheObjectsStrings(t *testing.T) {
	c, err := compile(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, lb := range []networkingv1.IngressLoadBalancerIngress{{IP: "203.0.113.10"}, {IP: "2001:db8::10"}, {Hostname: "lb.example.net"}} {
		ing := &networkingv1.Ingress{
			ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
			Spec:       networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: "web.example.com"}}},
			Status:     networkingv1.IngressStatus{LoadBalancer: networkingv1.IngressLoadBalancerStatus{Ingress: []networkingv1.IngressLoadBalancerIngress{lb}}},
		}
		var problems problemList
		eps := c.ingressEndpoints(ing, &problems)
		if len(eps) != 1 || len(eps[0].Targets) != 1 {
			t.Fatalf("%+v: endpoints %v, problems %v", lb, render(eps), problems.items)
		}
		raw := ing.Status.LoadBalancer.Ingress[0].IP
		if raw == "" {
			raw = ing.Status.LoadBalancer.Ingress[0].Hostname
		}
		if got := eps[0].Targets[0]; got != raw || unsafe.StringData(got) != unsafe.StringData(raw) {
			t.Errorf("%+v: target %q is a copy of the object's %q", lb, got, raw)
		}
		if unsafe.StringData(eps[0].DNSName) != unsafe.StringData(ing.Spec.Rules[0].Host) {
			t.Errorf("%+v: name %q is a copy of the object's host", lb, eps[0].DNSName)
		}
	}
}
