package e2e

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"

	"github.com/zonekeeper/zonekeeper/internal/app"
	"github.com/zonekeeper/zonekeeper/internal/source/sourcetest"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// The differential test of --target-template and --fqdn-target-template: external-dns v0.23.0 and
// zonekeeper, with the same repeated templates, over Services, Nodes, Pods, F5 VirtualServers and
// TransportServers and Traefik IngressRoutes on one real API server, each into its own empty etcd
// prefix of CoreDNS's backend; the record sets are compared record by record (name, type, TTL,
// targets, the ownership TXT records included). external-dns v0.21.0 is not compared: it applies
// these two flags only in its unstructured source, which zonekeeper does not have.

// ttPin is an intended difference (docs/migration.md, "Target templates"): records whose name matches
// re are written differently by the two; a pin that matches nothing fails the test.
type ttPin struct {
	re  *regexp.Regexp
	why string
}

// ttResource is the resource label in an ownership TXT record's text.
var ttResource = regexp.MustCompile(`,external-dns/resource=[^,"]*`)

// ttCluster creates the fixture: services with and without a hostname and a ttl annotation, two nodes,
// a pod, F5 servers with an address and without one yet (and one without host), Traefik routes with
// and without a target annotation.
func ttCluster(t *testing.T) []string {
	t.Helper()
	var objs []*unstructured.Unstructured
	for _, s := range []f5Server{
		{"default", "vs-ready", "vs-ready.example.com", nil, "192.0.2.1", "192.0.2.1", nil, nil},
		{"default", "vs-pending", "vs-pending.example.com", nil, "192.0.2.2", "-", nil, nil},
		{"default", "vs-nohost", "", nil, "192.0.2.3", "192.0.2.3", nil, nil},
	} {
		objs = append(objs, s.object("VirtualServer"))
	}
	objs = append(objs, f5Server{"default", "ts-ready", "ts-ready.example.com", nil, "192.0.2.4", "192.0.2.4", nil, nil}.object("TransportServer"))
	route := func(name string, host string, kv ...string) *unstructured.Unstructured {
		routes := []any{map[string]any{"match": "Host(`" + host + "`)", "kind": "Rule",
			"services": []any{map[string]any{"name": "web", "port": int64(80)}}}}
		return sourcetest.Object("traefik.io/v1alpha1", "IngressRoute", "default", name, sourcetest.Annotations(kv...), map[string]any{"routes": routes}, nil)
	}
	objs = append(objs, route("ir-target", "ir-target.example.com", "target", "192.0.2.5"), route("ir-notarget", "ir-notarget.example.com"))
	kube, flags := crdClusterServer(t, func(t testing.TB, k *testbed.KubeAPIServer) []string {
		testbed.InstallF5(t, k)
		return testbed.InstallTraefik(t, k, false)
	}, "f5-virtualserver", objs)
	client := kube.Client(t)
	const ga = "external-dns.kubernetes.io/"
	ttService(t, client, "svc-named", corev1.ServiceTypeLoadBalancer, map[string]string{ga + "hostname": "svc-named.example.com"}, "192.0.2.10")
	ttService(t, client, "svc-plain", corev1.ServiceTypeLoadBalancer, nil, "192.0.2.11")
	ttService(t, client, "svc-ttl", corev1.ServiceTypeClusterIP, map[string]string{ga + "ttl": "60"}, "")
	ttNode(t, client, "node-a", corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: "203.0.113.21"})
	ttNode(t, client, "node-b", corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "10.1.0.22"})
	ttPod(t, client, "pod-a", "10.2.0.23")
	return append(flags, "--source=f5-transportserver", "--source=traefik-proxy", "--source=service", "--source=node", "--source=pod")
}

func ttService(t *testing.T, c kubernetes.Interface, name string, typ corev1.ServiceType, ann map[string]string, lbIP string) {
	t.Helper()
	ctx := context.Background()
	svc, err := c.CoreV1().Services("default").Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Annotations: ann},
		Spec:       corev1.ServiceSpec{Type: typ, Ports: []corev1.ServicePort{{Port: 80}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if lbIP != "" {
		svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: lbIP}}
		if _, err := c.CoreV1().Services("default").UpdateStatus(ctx, svc, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

func ttNode(t *testing.T, c kubernetes.Interface, name string, addr corev1.NodeAddress) {
	t.Helper()
	ctx := context.Background()
	n, err := c.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n.Status.Addresses = []corev1.NodeAddress{addr}
	if _, err := c.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func ttPod(t *testing.T, c kubernetes.Interface, name, ip string) {
	t.Helper()
	ctx := context.Background()
	p, err := c.CoreV1().Pods("default").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app"}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.Status.PodIP, p.Status.PodIPs = ip, []corev1.PodIP{{IP: ip}}
	if _, err := c.CoreV1().Pods("default").UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestTargetTemplatesMatchExternalDNS runs external-dns v0.23.0 and zonekeeper with repeated
// --fqdn-target-template, --target-template and --fqdn-template values, with and without
// --combine-fqdn-annotation, and compares the records one by one.
func TestTargetTemplatesMatchExternalDNS(t *testing.T) {
	var peer *testbed.ExternalDNSPeer
	for _, p := range testbed.ExternalDNSPeers(t) {
		if p.Version == "v0.23.0" {
			peer = &p
		}
	}
	if peer == nil {
		t.Skip("external-dns v0.23.0 is not built: run hack/testbed.sh")
	}
	base := ttCluster(t)
	etcd := testbed.StartEtcd(t)
	t.Setenv("ETCD_URLS", etcd.Endpoint) // the coredns provider reads it from the process environment
	base = append([]string{"--provider=coredns", "--registry=txt", "--txt-owner-id=diff", "--policy=sync",
		"--domain-filter=example.com", "--kube-api-qps=100", "--kube-api-burst=200"}, base...)

	// Two values of each flag, as a v0.23 user repeats them: A and AAAA pairs (the AAAA target has
	// colons), two IPv4 targets, two names.
	pairs := []string{"--fqdn-target-template={{.Name}}.{{toLower .Kind}}.p.example.com:192.0.2.{{len .Name}}",
		"--fqdn-target-template={{.Name}}.{{toLower .Kind}}.p6.example.com:2001:db8::{{len .Name}}"}
	names := []string{"--fqdn-template={{.Name}}.{{toLower .Kind}}.f.example.com", "--fqdn-template={{.Name}}.{{toLower .Kind}}.g.example.com"}
	targets := []string{"--target-template=198.51.100.{{len .Name}}", "--target-template={{if isIPv4 \"203.0.113.1\"}}203.0.113.{{len .Name}}{{end}}"}
	ttl := ttPin{regexp.MustCompile(`(^|-)svc-ttl\.service\.p6?\.example\.com$`),
		"the ttl annotation applies to template records with zonekeeper; external-dns v0.23 gives them no TTL"}
	join := func(parts ...[]string) []string {
		var out []string
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	for i, set := range []struct {
		flags []string
		pins  []ttPin
		min   int
	}{
		{join(pairs, names, targets), []ttPin{ttl}, 30},
		{join(pairs, names, targets, []string{"--combine-fqdn-annotation"}), []ttPin{ttl}, 50},
		{join(names, targets), nil, 15},
	} {
		t.Run(fmt.Sprintf("flags %d", i), func(t *testing.T) {
			args := append(append([]string{}, base...), set.flags...)
			edP, zkP := fmt.Sprintf("/ttED%d/", i), fmt.Sprintf("/ttZK%d/", i)
			out, edTime := runPeerOnce(t, *peer, etcd.Endpoint, append(args, "--coredns-prefix="+edP)...)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			var log strings.Builder
			start := time.Now()
			if code := app.Main(ctx, append(args, "--once", "--coredns-prefix="+zkP), &strings.Builder{}, &log, os.Getenv); code != 0 {
				t.Fatalf("zonekeeper exited %d:\n%s", code, tail(log.String(), 6000))
			}
			t.Logf("external-dns %s, zonekeeper %s", edTime.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
			ed, edLabelled := ttRecords(t, etcd.Endpoint, edP)
			zk, zkLabelled := ttRecords(t, etcd.Endpoint, zkP)
			if len(ed) < set.min {
				t.Errorf("external-dns wrote only %d records, want at least %d: %v", len(ed), set.min, ed)
			}
			hits := make([]int, len(set.pins))
			var unexpected []string
			for _, d := range diffRecordSets(ed, zk) {
				name := strings.Fields(strings.SplitN(d, ": ", 2)[1])[0]
				pinned := false
				for k, p := range set.pins {
					if p.re.MatchString(name) {
						hits[k]++
						pinned = true
					}
				}
				if !pinned {
					unexpected = append(unexpected, d)
				}
			}
			if len(unexpected) > 0 {
				t.Errorf("%d records differ (%d from external-dns):\n%s\nexternal-dns log:\n%s\nzonekeeper log:\n%s",
					len(unexpected), len(ed), strings.Join(unexpected, "\n"), tail(out, 4000), tail(log.String(), 4000))
			}
			for k, p := range set.pins {
				if hits[k] == 0 {
					t.Errorf("pinned difference %q did not show", p.why)
				}
			}
			// The other intended difference: every ownership record of zonekeeper names its object
			// (resource label), external-dns's template records name none.
			if zkLabelled.unlabelled > 0 || edLabelled.unlabelled == 0 {
				t.Errorf("ownership records without a resource label: zonekeeper %d of %d (want 0), external-dns %d of %d (want > 0)",
					zkLabelled.unlabelled, zkLabelled.all, edLabelled.unlabelled, edLabelled.all)
			}
			t.Logf("%d records compared, pinned differences %v; ownership records without resource label: external-dns %d of %d",
				len(ed), hits, edLabelled.unlabelled, edLabelled.all)
		})
	}
}

// ttOwnership counts ownership TXT records, and those without a resource label.
type ttOwnership struct{ all, unlabelled int }

// ttRecords reads a prefix's records as recordSet does, with the resource label taken out of the
// ownership TXT records (compared separately).
func ttRecords(t *testing.T, endpoint, prefix string) (map[string]bool, ttOwnership) {
	t.Helper()
	var own ttOwnership
	out := map[string]bool{}
	for r := range recordSet(t, endpoint, prefix) {
		if f := strings.Fields(r); len(f) > 1 && f[1] == "TXT" && strings.Contains(r, "heritage=external-dns") {
			own.all++
			if !ttResource.MatchString(r) {
				own.unlabelled++
			}
			r = ttResource.ReplaceAllString(r, "")
		}
		out[r] = true
	}
	return out, own
}
