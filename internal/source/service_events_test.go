package source

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// TestServiceEventsNameTheirServices runs the Service source against a real kube-apiserver with every
// service type, so that it watches pods, nodes and EndpointSlices too: a pod's event names the
// Services whose selector picks it and those whose EndpointSlices point at it, an EndpointSlice's
// event names its Service, a node's names every NodePort Service and those reading a pod or a slice
// endpoint on it, and a pod no Service reads causes no event. ObjectEndpoints for one of two Services merged at one name answers
// for both, with what Endpoints publishes there.
func TestServiceEventsNameTheirServices(t *testing.T) {
	if testing.Short() {
		t.Skip("starts kube-apiserver")
	}
	api := testbed.StartKubeAPIServer(t)
	client := api.Client(t) // creates the objects
	kc := api.Kube(t)       // what the sources read through
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	src, err := NewService(ctx, kc, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	named := make(chan string, 100)
	src.AddObjectHandler(func(resource string) { named <- resource })
	expect := func(what, want string) { t.Helper(); awaitNamed(t, named, what, want) }
	create := func(obj any) {
		t.Helper()
		var err error
		switch o := obj.(type) {
		case *corev1.Service:
			_, err = client.CoreV1().Services("default").Create(ctx, o, metav1.CreateOptions{})
		case *corev1.Pod:
			_, err = client.CoreV1().Pods("default").Create(ctx, o, metav1.CreateOptions{})
		case *discoveryv1.EndpointSlice:
			_, err = client.DiscoveryV1().EndpointSlices("default").Create(ctx, o, metav1.CreateOptions{})
		case *corev1.Node:
			_, err = client.CoreV1().Nodes().Create(ctx, o, metav1.CreateOptions{})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	pod := func(name string, labels map[string]string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.example/app"}}}}
	}
	headlessService := func(name string, selector map[string]string) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{PrefixAlpha + "hostname": name + ".example.com"}},
			Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Selector: selector, Ports: []corev1.ServicePort{{Port: 80}}}}
	}

	create(headlessService("web", map[string]string{"app": "web"}))
	expect("service create", "service/default/web")
	create(pod("web-0", map[string]string{"app": "web"}))
	expect("a pod the selector picks", "service/default/web")

	ready := true
	create(&discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "web-abc", Labels: map[string]string{discoveryv1.LabelServiceName: "web"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.5"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready},
			TargetRef: &corev1.ObjectReference{Kind: "Pod", Name: "web-0"}}}})
	expect("its EndpointSlice", "service/default/web")

	// A Service without a selector, whose slice is kept by hand, reads the pod the slice points at.
	create(headlessService("manual", nil))
	expect("service create", "service/default/manual")
	create(pod("solo", nil))
	create(&discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "manual-1", Labels: map[string]string{discoveryv1.LabelServiceName: "manual"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.6"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready},
			TargetRef: &corev1.ObjectReference{Kind: "Pod", Name: "solo"}}}})
	expect("a hand-kept EndpointSlice", "service/default/manual")
	p, err := client.CoreV1().Pods("default").Get(ctx, "solo", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.Labels = map[string]string{"moved": "yes"}
	if _, err := client.CoreV1().Pods("default").Update(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	expect("a pod a slice points at", "service/default/manual")
	if got := src.podServices(pod("lonely", map[string]string{"app": "none"})); len(got) != 0 {
		t.Fatalf("a pod no Service reads concerns %v; want none", got)
	}

	// A node's event names the Services that read it: every NodePort Service, those reading a pod on
	// it, those with a slice endpoint on it.
	create(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "np", Annotations: map[string]string{PrefixAlpha + "hostname": "np.example.com"}},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Ports: []corev1.ServicePort{{Port: 80}}}})
	expect("service create", "service/default/np")
	onNode := pod("web-1", map[string]string{"app": "web"})
	onNode.Spec.NodeName = "n1"
	create(onNode)
	expect("a pod the selector picks", "service/default/web")
	n2 := "n2"
	create(&discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "manual-2", Labels: map[string]string{discoveryv1.LabelServiceName: "manual"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.7"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}, NodeName: &n2}}})
	expect("a slice endpoint on n2", "service/default/manual")
	// expectOnly waits for exactly the names want, then for 2 seconds of silence.
	expectOnly := func(what string, want ...string) {
		t.Helper()
		var got []string
		deadline := time.After(30 * time.Second)
		for len(got) < len(want) {
			select {
			case r := <-named:
				got = append(got, r)
			case <-deadline:
				t.Fatalf("%s: named %q, want %q", what, got, want)
			}
		}
		select {
		case r := <-named:
			got = append(got, r)
		case <-time.After(2 * time.Second):
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: named %q, want %q", what, got, want)
		}
	}
	create(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}})
	expectOnly("node n1", "service/default/np", "service/default/web")
	create(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n2"}})
	expectOnly("node n2", "service/default/manual", "service/default/np")
	// A heartbeat changes nothing the source reads (the cache holds nodes cut down to their
	// addresses): no event. An address change names the node's readers once.
	n, err := client.CoreV1().Nodes().Get(ctx, "n1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: metav1.Now()}}
	if n, err = client.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeExternalIP, Address: "198.51.100.9"}}
	if _, err := client.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	expectOnly("a heartbeat, then a new address of n1", "service/default/np", "service/default/web")

	// Two Services merged at one name: asking for one answers for both.
	lb := func(name, ip string) {
		create(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{PrefixAlpha + "hostname": "shared.example.com"}},
			Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{{Port: 80}}}})
		expect("create of "+name, "service/default/"+name)
		svc, err := client.CoreV1().Services("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: ip}}
		if _, err := client.CoreV1().Services("default").UpdateStatus(ctx, svc, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		expect("status of "+name, "service/default/"+name) // the second event of the object: its cache has the address
	}
	lb("lb-a", "203.0.113.1")
	lb("lb-b", "203.0.113.2")
	full, err := src.Endpoints(ctx)
	if err != nil {
		t.Fatal(err)
	}
	res, err := src.ObjectEndpoints(ctx, []string{"service/default/lb-b"})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, line := range render(full.Endpoints) {
		if strings.HasPrefix(line, "shared.example.com ") {
			want = append(want, line)
		}
	}
	if got := render(res.Endpoints); !slices.Equal(got, want) || len(got) != 1 {
		t.Fatalf("ObjectEndpoints(lb-b) %v; Endpoints has %v at the shared name: want the same one record set", got, want)
	}
	if !slices.Equal(res.Objects, []string{"service/default/lb-a", "service/default/lb-b"}) {
		t.Fatalf("the answer covers %v; want both Services", res.Objects)
	}
}
