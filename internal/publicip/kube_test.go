package publicip

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// One kube-apiserver serves all the Node and Service cases: starting it is the slow part.
func TestKubeSources(t *testing.T) {
	api := testbed.StartKubeAPIServer(t)
	kube := api.Client(t) // creates the objects
	client := api.Kube(t) // what the sources read through

	createNode(t, kube, "worker-1", corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "192.168.1.10"},
		corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: "203.0.113.10"},
		corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: "2001:db8::10"})
	createNode(t, kube, "worker-2", corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "192.168.1.11"})
	createService(t, kube, "ingress-nginx", "ingress-nginx-controller", corev1.LoadBalancerIngress{IP: "203.0.113.20"})
	createService(t, kube, "default", "elb", corev1.LoadBalancerIngress{Hostname: "abc.elb.example.com"})

	t.Run("node ExternalIP", func(t *testing.T) {
		got := lookupOK(t, &NodeSource{Client: client, Node: "worker-1"})
		if addrsString(got) != "203.0.113.10,2001:db8::10" {
			t.Fatalf("got %v", got)
		}
		wantLookupError(t, &NodeSource{Client: client, Node: "worker-2"}, "node worker-2 has no ExternalIP in status.addresses (it has InternalIP 192.168.1.11)")
		wantLookupError(t, &NodeSource{Client: client, Node: "worker-9"}, `get node worker-9: nodes "worker-9" not found`)
	})
	t.Run("service load-balancer status", func(t *testing.T) {
		got := lookupOK(t, &ServiceSource{Client: client, Namespace: "ingress-nginx", Service: "ingress-nginx-controller"})
		if addrsString(got) != "203.0.113.20" {
			t.Fatalf("got %v", got)
		}
		wantLookupError(t, &ServiceSource{Client: client, Namespace: "default", Service: "elb"}, "service default/elb has no IP in status.loadBalancer.ingress (only hostnames: abc.elb.example.com")
		wantLookupError(t, &ServiceSource{Client: client, Namespace: "default", Service: "nope"}, `services "nope" not found`)
	})

	// The node's ExternalIP changes (the router got a new WAN address and something updated the Node):
	// the next refresh follows; when the node loses it, the Service is the fallback.
	t.Run("discoverer follows the node, falls back to the service", func(t *testing.T) {
		log, logs := newTestLogger()
		d := mustNew(t, Config{Kube: client, NodeName: "worker-1", ServiceNamespace: "ingress-nginx", ServiceName: "ingress-nginx-controller", Logger: log})
		sub := subscribe(d)
		a := mustRefresh(t, d)
		if a.V4.String() != "203.0.113.10" || a.V6.String() != "2001:db8::10" || a.Source != "node/worker-1" {
			t.Fatalf("got %s from %q", a, a.Source)
		}
		sub.Next(t)

		setNodeAddresses(t, kube, "worker-1", corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: "203.0.113.11"})
		if a := mustRefresh(t, d); a.V4.String() != "203.0.113.11" || a.V6.IsValid() {
			t.Fatalf("after the node changed: %s", a)
		}
		if got := sub.Next(t); got.V4.String() != "203.0.113.11" {
			t.Fatalf("notified %s", got)
		}

		// A private ExternalIP (a home node reporting its LAN address) is rejected; the Service wins.
		setNodeAddresses(t, kube, "worker-1", corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: "192.168.1.10"})
		a = mustRefresh(t, d)
		if a.V4.String() != "203.0.113.20" || a.Source != "service/ingress-nginx/ingress-nginx-controller" {
			t.Fatalf("got %s from %q", a, a.Source)
		}
		sub.Next(t)
		if l := logs.Lines("Public address lookup failed", "source=node/worker-1", "192.168.1.10 is a private address (RFC 1918)"); len(l) != 1 {
			t.Fatalf("log:\n%s", logs)
		}

		// The Service's status changes.
		setServiceIngress(t, kube, "ingress-nginx", "ingress-nginx-controller", corev1.LoadBalancerIngress{IP: "203.0.113.21"})
		if a := mustRefresh(t, d); a.V4.String() != "203.0.113.21" {
			t.Fatalf("after the service changed: %s", a)
		}
		sub.Next(t)
	})
}

func createNode(t *testing.T, kube kubernetes.Interface, name string, addrs ...corev1.NodeAddress) {
	t.Helper()
	ctx := context.Background()
	if _, err := kube.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	setNodeAddresses(t, kube, name, addrs...)
}

// setNodeAddresses writes status.addresses, as the kubelet or a cloud controller would.
func setNodeAddresses(t *testing.T, kube kubernetes.Interface, name string, addrs ...corev1.NodeAddress) {
	t.Helper()
	ctx := context.Background()
	n, err := kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n.Status.Addresses = addrs
	if _, err := kube.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func createService(t *testing.T, kube kubernetes.Interface, ns, name string, ingress ...corev1.LoadBalancerIngress) {
	t.Helper()
	ctx := context.Background()
	if ns != "default" {
		if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.ServiceSpec{
			Type:  corev1.ServiceTypeLoadBalancer,
			Ports: []corev1.ServicePort{{Name: "https", Port: 443}},
		},
	}
	if _, err := kube.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	setServiceIngress(t, kube, ns, name, ingress...)
}

// setServiceIngress writes status.loadBalancer.ingress, as MetalLB or a cloud controller would.
func setServiceIngress(t *testing.T, kube kubernetes.Interface, ns, name string, ingress ...corev1.LoadBalancerIngress) {
	t.Helper()
	ctx := context.Background()
	svc, err := kube.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	svc.Status.LoadBalancer.Ingress = ingress
	if _, err := kube.CoreV1().Services(ns).UpdateStatus(ctx, svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}
