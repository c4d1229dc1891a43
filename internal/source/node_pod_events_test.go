package source

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// TestNodeAndPodEventsNameTheirObjects runs the node and pod sources against a real kube-apiserver: a
// node's event names the node for the node source and the pods on it for the pod source (the hostname
// annotation publishes the node's addresses); a pod's event names the pod. ObjectEndpoints of one of
// two nodes merged at one name (--fqdn-template naming them alike) covers both and equals Endpoints.
func TestNodeAndPodEventsNameTheirObjects(t *testing.T) {
	if testing.Short() {
		t.Skip("starts kube-apiserver")
	}
	api := testbed.StartKubeAPIServer(t)
	client := api.Client(t) // creates the objects
	kc := api.Kube(t)       // what the sources read through
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cfg := DefaultConfig()
	cfg.FQDNTemplate = "{{.Name}}.nodes.example.com, all.nodes.example.com"
	nodes, err := NewNode(ctx, kc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	pods, err := NewPod(ctx, kc, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	nodeEvents, podEvents := make(chan string, 100), make(chan string, 100)
	nodes.AddObjectHandler(func(r string) { nodeEvents <- r })
	pods.AddObjectHandler(func(r string) { podEvents <- r })
	expect := func(ch chan string, what, want string) { t.Helper(); awaitNamed(t, ch, what, want) }
	createNode(t, client, "n1", false, nil, nil, corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: "198.51.100.1"})
	expect(nodeEvents, "node n1", "node/n1")
	createNode(t, client, "n2", false, nil, nil, corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: "198.51.100.2"})
	expect(nodeEvents, "node n2", "node/n2")
	expect(nodeEvents, "node n2's addresses", "node/n2")

	full, err := nodes.Endpoints(ctx)
	if err != nil {
		t.Fatal(err)
	}
	res, err := nodes.ObjectEndpoints(ctx, []string{"node/n2"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := render(res.Endpoints), render(full.Endpoints); !slices.Equal(got, want) || len(got) != 3 {
		t.Fatalf("ObjectEndpoints(n2) %v; Endpoints %v: want the same three (two nodes' and the shared one)", got, want)
	}
	if !slices.Equal(res.Objects, []string{"node/n1", "node/n2"}) {
		t.Fatalf("the answer covers %v; want both nodes", res.Objects)
	}

	if _, err := client.CoreV1().Pods("default").Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p1", Annotations: map[string]string{PrefixAlpha + "hostname": "p1.example.com"}},
		Spec:       corev1.PodSpec{NodeName: "n1", HostNetwork: true, Containers: []corev1.Container{{Name: "c", Image: "registry.example/app"}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	expect(podEvents, "pod p1", "pod/default/p1")
	n, err := client.CoreV1().Nodes().Get(ctx, "n1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeExternalIP, Address: "198.51.100.7"}}
	if _, err := client.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	expect(podEvents, "the address of p1's node", "pod/default/p1")
	if _, err := pods.Endpoints(ctx); err != nil {
		t.Fatal(err)
	}
	res, err = pods.ObjectEndpoints(ctx, []string{"pod/default/p1"})
	if err != nil {
		t.Fatal(err)
	}
	if got := render(res.Endpoints); !slices.Equal(got, []string{"p1.example.com A 198.51.100.7 res=pod/default/p1"}) {
		t.Fatalf("ObjectEndpoints(p1) %v; want p1.example.com at its node's new address", got)
	}
}
