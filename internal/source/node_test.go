package source

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// createNode creates a Node and sets its addresses through the status subresource, as a kubelet
// would.
func createNode(t *testing.T, client kubernetes.Interface, name string, unschedulable bool, labels, ann map[string]string, addrs ...corev1.NodeAddress) {
	t.Helper()
	ctx := context.Background()
	n, err := client.CoreV1().Nodes().Create(ctx, &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, Annotations: ann},
		Spec:       corev1.NodeSpec{Unschedulable: unschedulable},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n.Status.Addresses = addrs
	if _, err := client.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestNodeSourceAgainstAPIServer runs the node source on a real kube-apiserver with external-dns
// v0.21.0's rules: ExternalIPs else InternalIPs, --expose-internal-ipv6, --exclude-unschedulable,
// --fqdn-template (with .Kind), filters, the ttl, target and controller annotations, and bad input.
func TestNodeSourceAgainstAPIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts kube-apiserver")
	}
	api := testbed.StartKubeAPIServer(t)
	client := api.Client(t) // creates the objects
	kc := api.Kube(t)       // what the sources read through
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	a := func(k, v string) map[string]string { return map[string]string{alpha + k: v} }
	createNode(t, client, "n1.example.com", false, map[string]string{"pool": "edge"}, nil,
		ext("203.0.113.1"), internal("10.0.0.1"), internal("fd00::1"), ext("2001:db8::1"),
		corev1.NodeAddress{Type: corev1.NodeHostName, Address: "n1"})
	createNode(t, client, "n2.example.com", false, nil, nil, internal("10.0.0.2"), internal("fd00::2"))
	createNode(t, client, "n3.example.com", true, nil, nil, ext("203.0.113.3"))
	createNode(t, client, "n4.example.com", false, nil, map[string]string{alpha + "ttl": "120", ga + "target": "lb.example.net."}, ext("203.0.113.4"))
	createNode(t, client, "n5.example.com", false, nil, a("controller", "someone-else"), ext("203.0.113.5"))
	createNode(t, client, "n6.example.com", false, nil, map[string]string{alpha + "ttl": "soon", alpha + "hostname": "n6-alias.example.com", alpha + "aws-weight": "10"},
		ext("203.0.113.6"))
	createNode(t, client, "n7.example.com", false, nil, nil) // no addresses yet
	createNode(t, client, "n8.example.com", false, nil, nil, ext("not-an-ip"), internal("10.0.0.8"))

	n1 := "n1.example.com A 203.0.113.1 res=node/n1.example.com"
	n1v6 := "n1.example.com AAAA 2001:db8::1 res=node/n1.example.com"
	n2 := []string{"n2.example.com A 10.0.0.2 res=node/n2.example.com", "n2.example.com AAAA fd00::2 res=node/n2.example.com"}
	n4 := "n4.example.com CNAME lb.example.net ttl=120 res=node/n4.example.com"
	n6 := "n6.example.com A 203.0.113.6 res=node/n6.example.com"
	base := []string{n1, n1v6, n4, n6}
	base = append(base, n2...)
	cfg := func(f func(*Config)) Config {
		c := DefaultConfig()
		f(&c)
		return c
	}
	for _, tc := range []struct {
		name string
		cfg  Config
		want []string
	}{
		{"defaults", DefaultConfig(), base},
		{"--namespace does not apply to nodes", cfg(func(c *Config) { c.Namespace = "team-a" }), base},
		{"--expose-internal-ipv6", cfg(func(c *Config) { c.ExposeInternalIPv6 = true }),
			append([]string{n1, "n1.example.com AAAA 2001:db8::1,fd00::1 res=node/n1.example.com", n4, n6}, n2...)},
		{"--exclude-unschedulable=false", Config{}, append([]string{"n3.example.com A 203.0.113.3 res=node/n3.example.com"}, base...)},
		{"--label-filter", cfg(func(c *Config) { c.LabelFilter = "pool=edge" }), []string{n1, n1v6}},
		{"--annotation-filter", cfg(func(c *Config) { c.AnnotationFilter = alpha + "ttl=120" }), []string{n4}},
		{"--fqdn-template", cfg(func(c *Config) { c.FQDNTemplate = "{{.Name}}.{{.Kind}}.t.example.org, all.example.org" }), []string{
			"n1.example.com.node.t.example.org A 203.0.113.1 res=node/n1.example.com",
			"n1.example.com.node.t.example.org AAAA 2001:db8::1 res=node/n1.example.com",
			"n2.example.com.node.t.example.org A 10.0.0.2 res=node/n2.example.com",
			"n2.example.com.node.t.example.org AAAA fd00::2 res=node/n2.example.com",
			"n4.example.com.node.t.example.org CNAME lb.example.net ttl=120 res=node/n4.example.com",
			"n6.example.com.node.t.example.org A 203.0.113.6 res=node/n6.example.com",
			"all.example.org A 10.0.0.2,203.0.113.1,203.0.113.6 res=node/n1.example.com",
			"all.example.org AAAA 2001:db8::1,fd00::2 res=node/n1.example.com",
			"all.example.org CNAME lb.example.net ttl=120 res=node/n4.example.com",
		}},
		{"--fqdn-template --combine-fqdn-annotation", cfg(func(c *Config) {
			c.FQDNTemplate = "{{.Name}}.t.example.org"
			c.CombineFQDNAndAnnotation = true
			c.LabelFilter = "pool=edge"
		}), []string{n1, n1v6, "n1.example.com.t.example.org A 203.0.113.1 res=node/n1.example.com",
			"n1.example.com.t.example.org AAAA 2001:db8::1 res=node/n1.example.com"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewNode(ctx, kc, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			r, err := s.Endpoints(ctx)
			if err != nil {
				t.Fatal(err)
			}
			expectEndpoints(t, r.Endpoints, tc.want...)
			n6ref := endpoint.ObjectRef{Kind: "Node", Name: "n6.example.com"}
			if tc.cfg.LabelFilter == "" && tc.cfg.AnnotationFilter == "" {
				findProblem(t, r, n6ref, "metadata.annotations["+alpha+"ttl]")
				findProblem(t, r, n6ref, "metadata.annotations["+alpha+"hostname]")
				findProblem(t, r, n6ref, "metadata.annotations["+alpha+"aws-weight]")
				findProblem(t, r, endpoint.ObjectRef{Kind: "Node", Name: "n8.example.com"}, "status.addresses[0].address")
			}
			if obj, ok := s.LookupObject("Node", "", "n1.example.com"); !ok || obj.(*corev1.Node).Name != "n1.example.com" {
				t.Errorf("LookupObject(Node n1) = %v, %v", obj, ok)
			}
		})
	}

	// Events: a change of a node reaches the handlers, and the next pass sees it; the cache holds
	// trimmed nodes.
	s, err := NewNode(ctx, kc, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	updateNodeAndExpect(ctx, t, client, s, "n7.example.com", func(n *corev1.Node) {
		n.Status.Addresses = []corev1.NodeAddress{ext("203.0.113.7")}
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
	}, "n7.example.com A 203.0.113.7 res=node/n7.example.com")
	obj, _ := s.LookupObject("node", "", "n7.example.com")
	if c := obj.(*corev1.Node).Status.Conditions; len(c) != 0 {
		t.Errorf("cached node keeps its conditions: %v", c)
	}
	if _, err := NewNode(ctx, kc, cfg(func(c *Config) { c.LabelFilter = "a in (" })); err == nil {
		t.Error("a bad --label-filter was accepted")
	}
}

// updateNodeAndExpect changes a node's status, waits for s to tell its handlers, and then for the
// endpoint line (as render prints it) among s's endpoints.
func updateNodeAndExpect(ctx context.Context, t *testing.T, client kubernetes.Interface, s Source, name string, edit func(*corev1.Node), line string) {
	t.Helper()
	events := make(chan struct{}, 100)
	s.AddEventHandler(func() { events <- struct{}{} })
	n, err := client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	edit(n)
	if _, err := client.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-events:
	case <-ctx.Done():
		t.Fatal("no event after a node update")
	}
	testbed.Eventually(t, 10*time.Second, line, func() error {
		r, err := s.Endpoints(ctx)
		if err != nil {
			return err
		}
		if got := render(r.Endpoints); !slices.Contains(got, line) {
			return fmt.Errorf("not yet: %v", got)
		}
		return nil
	})
}

// --expose-internal-ipv6 also adds the nodes' IPv6 InternalIPs to NodePort services' public
// addresses and to headless services' NodeExternalIP targets, as in external-dns v0.21.0.
func TestExposeInternalIPv6Services(t *testing.T) {
	nodes := []runtime.Object{
		node("n1", false, ext("203.0.113.1"), internal("10.1.0.1"), internal("fd00::1")),
		node("n2", false, internal("10.1.0.2"), internal("fd00::2")),
	}
	nodePort := &corev1.Service{ObjectMeta: om("np", map[string]string{alpha + "hostname": "np.example.com"}), Spec: corev1.ServiceSpec{
		Type: corev1.ServiceTypeNodePort, ClusterIP: "10.0.0.10", Ports: []corev1.ServicePort{{Port: 80}},
	}}
	headless := &corev1.Service{ObjectMeta: om("hl", map[string]string{alpha + "hostname": "hl.example.com", alpha + "endpoints-type": "NodeExternalIP"}),
		Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Selector: map[string]string{"app": "hl"}}}
	objs := append([]runtime.Object{nodePort, headless, pod("hl-0", "n1", "", true, map[string]string{"app": "hl"}),
		endpointSlice("hl-1", "hl", sliceEndpoint("hl-0", "10.2.0.1", true))}, nodes...)
	without := run(t, DefaultConfig(), objs...)
	expectEndpoints(t, without.Endpoints,
		"np.example.com A 203.0.113.1 res=service/default/np",
		"hl.example.com A 203.0.113.1 res=service/default/hl")
	cfg := DefaultConfig()
	cfg.ExposeInternalIPv6 = true
	with := run(t, cfg, objs...)
	expectEndpoints(t, with.Endpoints,
		"np.example.com A 203.0.113.1 res=service/default/np",
		"np.example.com AAAA fd00::1,fd00::2 res=service/default/np",
		"hl.example.com A 203.0.113.1 res=service/default/hl",
		"hl.example.com AAAA fd00::1 res=service/default/hl")
}
