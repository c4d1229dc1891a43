package source

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// createPod creates a Pod bound to nodeName and sets its IPs through the status subresource, as a
// kubelet would (no kubelet runs: nothing starts the container).
func createPod(t *testing.T, client kubernetes.Interface, ns, name, nodeName string, hostNetwork bool, ann map[string]string, ips ...string) {
	t.Helper()
	ctx := context.Background()
	p, err := client.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: ann, Labels: map[string]string{"app": name}},
		Spec: corev1.PodSpec{NodeName: nodeName, HostNetwork: hostNetwork,
			Containers: []corev1.Container{{Name: "c", Image: "registry.example/none"}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ips) == 0 {
		return
	}
	p.Status.Phase = corev1.PodRunning
	p.Status.PodIP = ips[0]
	for _, ip := range ips {
		p.Status.PodIPs = append(p.Status.PodIPs, corev1.PodIP{IP: ip})
	}
	if _, err := client.CoreV1().Pods(ns).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestPodSourceAgainstAPIServer runs the pod source on a real kube-apiserver with external-dns
// v0.21.0's rules: internal-hostname → pod IP, hostname → the node's ExternalIPs and IPv6
// InternalIPs, the target annotation, --pod-source-domain, --ignore-non-host-network-pods,
// --fqdn-template over status.podIPs, --namespace, and bad input.
func TestPodSourceAgainstAPIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts kube-apiserver")
	}
	api := testbed.StartKubeAPIServer(t)
	client := api.Client(t) // creates the objects
	kc := api.Kube(t)       // what the sources read through
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "other"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	createNode(t, client, "w1", false, nil, nil, ext("203.0.113.11"), internal("10.1.0.1"), internal("fd00::11"))
	createNode(t, client, "w2", false, nil, nil, internal("10.1.0.2")) // no public address
	a := func(kv ...string) map[string]string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[alpha+kv[i]] = kv[i+1]
		}
		return m
	}
	createPod(t, client, "default", "p1", "w1", false, a("internal-hostname", "p1-int.example.com"), "10.244.0.1", "fd10::1")
	createPod(t, client, "default", "p2", "w1", false, a("hostname", "p2.example.com,shared.example.com"), "10.244.0.2")
	createPod(t, client, "default", "p3", "w1", false, a("hostname", "p3.example.com", "internal-hostname", "p3-int.example.com", "target", "lb.example.net"), "10.244.0.3")
	createPod(t, client, "default", "p4", "w1", true, a("hostname", "p4.example.com", "ttl", "60"), "10.1.0.1")
	createPod(t, client, "default", "p5", "w1", false, a("internal-hostname", "p5.example.com", "controller", "someone-else"), "10.244.0.5")
	createPod(t, client, "default", "p6", "w2", false, a("hostname", "bad..example.com,p6.example.com,shared.example.com", "set-identifier", "x"), "10.244.0.6")
	createPod(t, client, "default", "p7", "", false, a("hostname", "p7.example.com", "internal-hostname", "p7-int.example.com")) // pending, no IP
	createPod(t, client, "default", "p8", "w1", false, nil, "10.244.0.8")
	createPod(t, client, "other", "o1", "w1", false, a("internal-hostname", "o1.example.com"), "10.244.1.1")

	p1 := "p1-int.example.com A 10.244.0.1 res=pod/default/p1"
	p2 := "p2.example.com A 203.0.113.11 res=pod/default/p2"
	p2v6 := "p2.example.com AAAA fd00::11 res=pod/default/p2"
	shared := "shared.example.com A 203.0.113.11 res=pod/default/p2"
	sharedV6 := "shared.example.com AAAA fd00::11 res=pod/default/p2"
	p3 := "p3.example.com CNAME lb.example.net res=pod/default/p3"
	p3i := "p3-int.example.com CNAME lb.example.net res=pod/default/p3"
	p4 := "p4.example.com A 203.0.113.11 ttl=60 res=pod/default/p4"
	p4v6 := "p4.example.com AAAA fd00::11 ttl=60 res=pod/default/p4"
	o1 := "o1.example.com A 10.244.1.1 res=pod/other/o1"
	base := []string{p1, p2, p2v6, shared, sharedV6, p3, p3i, p4, p4v6, o1}
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
		{"--namespace", cfg(func(c *Config) { c.Namespace = "other" }), []string{o1}},
		{"--ignore-non-host-network-pods", cfg(func(c *Config) {
			c.IgnoreNonHostNetworkPods = true
			c.FQDNTemplate = "{{.Name}}.tmpl.example.com"
		}), []string{p4, p4v6}},
		{"--pod-source-domain", cfg(func(c *Config) { c.PodSourceDomain = "pods.example.com"; c.Namespace = "default" }), append([]string{
			"p1.pods.example.com A 10.244.0.1 res=pod/default/p1",
			"p2.pods.example.com A 10.244.0.2 res=pod/default/p2",
			"p3.pods.example.com CNAME lb.example.net res=pod/default/p3",
			"p4.pods.example.com A 10.1.0.1 ttl=60 res=pod/default/p4",
			"p6.pods.example.com A 10.244.0.6 res=pod/default/p6",
			"p8.pods.example.com A 10.244.0.8 res=pod/default/p8",
		}, p1, p2, p2v6, shared, sharedV6, p3, p3i, p4, p4v6)},
		{"--fqdn-template", cfg(func(c *Config) { c.FQDNTemplate = "{{.Name}}.{{.Kind}}.tmpl.example.com" }), append([]string{
			"p6.pod.tmpl.example.com A 10.244.0.6 res=pod/default/p6",
			"p8.pod.tmpl.example.com A 10.244.0.8 res=pod/default/p8",
		}, base...)},
		{"--fqdn-template --combine-fqdn-annotation", cfg(func(c *Config) {
			c.FQDNTemplate = "{{.Name}}.tmpl.example.com"
			c.CombineFQDNAndAnnotation = true
			c.LabelFilter = "app in (p1,p3)"
		}), []string{p1, p3, p3i,
			"p1.tmpl.example.com A 10.244.0.1 res=pod/default/p1", "p1.tmpl.example.com AAAA fd10::1 res=pod/default/p1",
			"p3.tmpl.example.com A 10.244.0.3 res=pod/default/p3"}},
		{"--ignore-hostname-annotation", cfg(func(c *Config) {
			c.FQDNTemplate = "{{.Name}}.tmpl.example.com"
			c.IgnoreHostnameAnnotation = true
			c.AnnotationFilter = alpha + "hostname"
		}), []string{
			"p2.tmpl.example.com A 10.244.0.2 res=pod/default/p2",
			"p3.tmpl.example.com A 10.244.0.3 res=pod/default/p3",
			"p4.tmpl.example.com A 10.1.0.1 ttl=60 res=pod/default/p4",
			"p6.tmpl.example.com A 10.244.0.6 res=pod/default/p6",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewPod(ctx, kc, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			r, err := s.Endpoints(ctx)
			if err != nil {
				t.Fatal(err)
			}
			expectEndpoints(t, r.Endpoints, tc.want...)
			if tc.name == "defaults" {
				p6 := endpoint.ObjectRef{Kind: "Pod", Namespace: "default", Name: "p6"}
				findProblem(t, r, p6, "metadata.annotations["+alpha+"hostname]")
				findProblem(t, r, p6, "metadata.annotations["+alpha+"set-identifier]")
				if len(r.Problems) != 2 {
					t.Errorf("problems: %v", r.Problems)
				}
				if obj, ok := s.LookupObject("Pod", "default", "p1"); !ok || obj.(*corev1.Pod).Name != "p1" {
					t.Errorf("LookupObject(Pod default/p1) = %v, %v", obj, ok)
				}
				if obj, ok := s.LookupObject("Node", "", "w1"); !ok || obj.(*corev1.Node).Name != "w1" {
					t.Errorf("LookupObject(Node w1) = %v, %v (Events for bad node addresses)", obj, ok)
				}
			}
		})
	}
	if _, err := NewPod(ctx, kc, cfg(func(c *Config) { c.PodSourceDomain = "bad_domain..example" })); err == nil {
		t.Error("a bad --pod-source-domain was accepted")
	}

	// A node's new address reaches the pods on it: the source watches nodes too.
	s, err := NewPod(ctx, kc, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	updateNodeAndExpect(ctx, t, client, s, "w2", func(n *corev1.Node) {
		n.Status.Addresses = append(n.Status.Addresses, ext("203.0.113.12"))
	}, "p6.example.com A 203.0.113.12 res=pod/default/p6")
}

// BenchmarkPodEndpoints measures one Endpoints call over 10,000 pods on 500 nodes held in indexers (the
// stores the informers fill): each pod has the internal-hostname and ttl annotations, every tenth the
// hostname annotation (its node's addresses), and --pod-source-domain names them all.
func BenchmarkPodEndpoints(b *testing.B) {
	const pods, nodes = 10000, 500
	podIdx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	nodeIdx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for i := 0; i < nodes; i++ {
		n := node(fmt.Sprintf("node-%d", i), false, ext(fmt.Sprintf("203.0.%d.%d", i/250, i%250+1)), internal(fmt.Sprintf("10.0.%d.%d", i/250, i%250+1)))
		if err := nodeIdx.Add(n); err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; i < pods; i++ {
		ann := map[string]string{alpha + "internal-hostname": fmt.Sprintf("p%d.int.example.com", i), alpha + "ttl": "60"}
		if i%10 == 0 {
			ann[alpha+"hostname"] = fmt.Sprintf("p%d.example.com", i)
		}
		p := pod(fmt.Sprintf("p%d", i), fmt.Sprintf("node-%d", i%nodes), "", true, nil)
		p.Namespace, p.Annotations = fmt.Sprintf("ns-%d", i%50), ann
		p.Status.PodIP = fmt.Sprintf("10.%d.%d.%d", 100+i/65536, (i/256)%256, i%256)
		if err := podIdx.Add(p); err != nil {
			b.Fatal(err)
		}
	}
	cfg := DefaultConfig()
	cfg.PodSourceDomain = "pods.example.com"
	c, err := compile(cfg)
	if err != nil {
		b.Fatal(err)
	}
	s := &PodSource{c: c, pods: corelisters.NewPodLister(podIdx), nodes: corelisters.NewNodeLister(nodeIdx)}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r, err := s.Endpoints(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if len(r.Endpoints) != 2*pods+pods/10 || len(r.Problems) != 0 {
			b.Fatalf("%d endpoints, %d problems", len(r.Endpoints), len(r.Problems))
		}
	}
}
