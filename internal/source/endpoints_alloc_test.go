package source

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestIngressEndpointsAllocations bounds what making one Ingress's endpoints allocates, which every
// source pass does for every Ingress: the endpoints, their targets and label map, the resource label
// and what normalising allocates, but no field names for problems that are not there and no
// annotation keys on an Ingress without annotations: 21 allocations since this test came, 36 before,
// over the compact Ingress the informer caches (cachedIngress).
func TestIngressEndpointsAllocations(t *testing.T) {
	c, err := compile(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	ing := &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: "web.example.com"}},
			TLS: []networkingv1.IngressTLS{{Hosts: []string{"web.example.com"}}}},
		Status: networkingv1.IngressStatus{LoadBalancer: networkingv1.IngressLoadBalancerStatus{
			Ingress: []networkingv1.IngressLoadBalancerIngress{{IP: "203.0.113.10"}}}},
	}
	var problems problemList
	cached := compactIngress(ing)
	allocs := testing.AllocsPerRun(100, func() { c.cachedIngressEndpoints(cached, nil, &problems) })
	// A whole Ingress (from manifests, or cached whole with --fqdn-template) is read through its
	// compact view, made for each pass: the view and its three slices.
	wholeAllocs := testing.AllocsPerRun(100, func() { c.ingressEndpoints(ing, &problems) })
	t.Logf("%.0f allocations per cached Ingress, %.0f per whole Ingress", allocs, wholeAllocs)
	if len(problems.items) != 0 {
		t.Fatalf("problems: %v", problems.items)
	}
	if allocs > 21 {
		t.Errorf("%.0f allocations to make one cached Ingress's endpoints, want at most 21", allocs)
	}
	if wholeAllocs > 25 {
		t.Errorf("%.0f allocations to make one whole Ingress's endpoints, want at most 25", wholeAllocs)
	}
}

// TestServiceEndpointsAllocations is TestIngressEndpointsAllocations for a LoadBalancer Service named
// by its hostname annotation: 28 allocations since its field names are formatted only for a problem
// and its resource label without fmt, 32 before, 42 before the unread-keys report built no keys.
func TestServiceEndpointsAllocations(t *testing.T) {
	c, err := compile(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Annotations: map[string]string{PrefixAlpha + "hostname": "web.example.com"}},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer},
		Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{
			Ingress: []corev1.LoadBalancerIngress{{IP: "203.0.113.10"}, {Hostname: "lb.example.net"}}}},
	}
	var problems problemList
	allocs := testing.AllocsPerRun(100, func() { c.serviceEndpoints(svc, clusterState{}, &problems) })
	t.Logf("%.0f allocations per Service", allocs)
	if len(problems.items) != 0 {
		t.Fatalf("problems: %v", problems.items)
	}
	if allocs > 28 {
		t.Errorf("%.0f allocations to make one Service's endpoints, want at most 28", allocs)
	}
}
