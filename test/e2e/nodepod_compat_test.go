package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/miekg/dns"

	"github.com/zonekeeper/zonekeeper/internal/app"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// fixtureNode is one Node of the differential fixture; addresses are "ext:IP", "int:IP" or "host:NAME".
type fixtureNode struct {
	name          string
	unschedulable bool
	labels, ann   map[string]string
	addrs         []string
}

// fixturePod is one Pod; ips[0] is status.podIP, all of them status.podIPs; no ips: pending.
type fixturePod struct {
	ns, name, node string
	hostNetwork    bool
	labels, ann    map[string]string
	ips            []string
}

const edPrefix = "external-dns.alpha.kubernetes.io/"

// kv makes an annotation map under the alpha prefix (which both external-dns versions read here).
func kv(pairs ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(pairs); i += 2 {
		m[edPrefix+pairs[i]] = pairs[i+1]
	}
	return m
}

// nodePodFixture is the differential test's cluster: 22 nodes and 23 pods covering ExternalIP and
// InternalIP choice, IPv6 (external, internal, dual-stack), unschedulable nodes, the ttl (seconds,
// duration, bad), target (hostname, IP) and controller annotations, annotations neither tool reads
// on these kinds (hostname and set-identifier on a node, set-identifier on a pod), hostNetwork and
// not, pods on nodes with and without public addresses, a pending pod, two pods sharing a name, and
// a second namespace.
func nodePodFixture() ([]fixtureNode, []fixturePod) {
	edge := map[string]string{"pool": "edge"}
	nodes := []fixtureNode{
		{name: "n01.nodes.example.com", addrs: []string{"ext:203.0.113.1", "int:10.0.0.1"}},
		{name: "n02.nodes.example.com", addrs: []string{"int:10.0.0.2"}},
		{name: "n03.nodes.example.com", addrs: []string{"ext:203.0.113.3", "ext:2001:db8::3", "int:10.0.0.3"}},
		{name: "n04.nodes.example.com", addrs: []string{"ext:203.0.113.4", "int:10.0.0.4", "int:fd00::4"}},
		{name: "n05.nodes.example.com", addrs: []string{"int:10.0.0.5", "int:fd00::5"}},
		{name: "n06.nodes.example.com", unschedulable: true, addrs: []string{"ext:203.0.113.6"}},
		{name: "n07.nodes.example.com", ann: kv("ttl", "120"), addrs: []string{"ext:203.0.113.7"}},
		{name: "n08.nodes.example.com", ann: kv("target", "lb-n08.example.net."), addrs: []string{"ext:203.0.113.8"}},
		{name: "n09.nodes.example.com", ann: kv("target", "198.51.100.9,198.51.100.90"), addrs: []string{"ext:203.0.113.9"}},
		{name: "n10.nodes.example.com", ann: kv("controller", "someone-else"), addrs: []string{"ext:203.0.113.10"}},
		{name: "n11.nodes.example.com", ann: kv("ttl", "abc"), addrs: []string{"ext:203.0.113.11"}},
		{name: "n12.nodes.example.com", labels: edge, addrs: []string{"ext:203.0.113.12"}},
		{name: "n13.nodes.example.com", labels: edge, ann: kv("ttl", "30"), addrs: []string{"int:10.0.0.13", "int:fd00::13"}},
		{name: "n14.nodes.example.com", ann: kv("hostname", "n14-alias.example.com"), addrs: []string{"ext:203.0.113.14"}},
		{name: "n15.nodes.example.com", addrs: []string{"ext:2001:db8::15", "int:fd00::15"}},
		{name: "n16.nodes.example.com", addrs: []string{"int:fd00::16"}},
		{name: "n17.nodes.example.com", addrs: []string{"host:n17", "int:10.0.0.17"}},
		{name: "n18.nodes.example.com", ann: kv("ttl", "5m"), addrs: []string{"ext:203.0.113.18", "int:fd00::18"}},
		{name: "worker-19", addrs: []string{"ext:203.0.113.19"}}, // outside the domain filter
		{name: "n20.nodes.example.com", unschedulable: true, ann: kv("target", "lb-n20.example.net"), addrs: []string{"ext:203.0.113.20"}},
		{name: "n21.nodes.example.com", ann: kv("set-identifier", "blue"), addrs: []string{"ext:203.0.113.21"}},
		{name: "n22.nodes.example.com", labels: edge, unschedulable: true, addrs: []string{"int:10.0.0.22"}},
	}
	h := func(n string) string { return n + ".pods.example.com" }
	pods := []fixturePod{
		{ns: "apps", name: "p01", node: "n01.nodes.example.com", ann: kv("internal-hostname", h("p01-int")), ips: []string{"10.244.0.1"}},
		{ns: "apps", name: "p02", node: "n01.nodes.example.com", ann: kv("hostname", h("p02")), ips: []string{"10.244.0.2"}},
		{ns: "apps", name: "p03", node: "n04.nodes.example.com", ann: kv("hostname", h("p03")), ips: []string{"10.244.0.3"}},
		{ns: "apps", name: "p04", node: "n02.nodes.example.com", ann: kv("hostname", h("p04")), ips: []string{"10.244.0.4"}},
		{ns: "apps", name: "p05", node: "n01.nodes.example.com", ann: kv("hostname", h("p05"), "target", "lb-p05.example.net"), ips: []string{"10.244.0.5"}},
		{ns: "apps", name: "p06", node: "n01.nodes.example.com", ann: kv("internal-hostname", h("p06-int"), "target", "198.51.100.6"), ips: []string{"10.244.0.6"}},
		{ns: "apps", name: "p07", node: "n01.nodes.example.com", hostNetwork: true, ann: kv("hostname", h("p07")), ips: []string{"10.0.0.1"}},
		{ns: "apps", name: "p08", node: "n04.nodes.example.com", hostNetwork: true, ann: kv("internal-hostname", h("p08-int")), ips: []string{"10.0.0.4"}},
		{ns: "apps", name: "p09", node: "n01.nodes.example.com", ann: kv("internal-hostname", h("p09-int"), "ttl", "60"), ips: []string{"10.244.0.9"}},
		{ns: "apps", name: "p10", node: "n01.nodes.example.com", ann: kv("internal-hostname", h("p10-int"), "controller", "someone-else"), ips: []string{"10.244.0.10"}},
		{ns: "apps", name: "p11", node: "n01.nodes.example.com", ann: kv("hostname", h("shared")), ips: []string{"10.244.0.11"}},
		{ns: "apps", name: "p12", node: "n03.nodes.example.com", ann: kv("hostname", h("shared")), ips: []string{"10.244.0.12"}},
		{ns: "apps", name: "p13", node: "n01.nodes.example.com", ips: []string{"10.244.0.13"}},
		{ns: "apps", name: "p14", node: "n01.nodes.example.com", ips: []string{"10.244.0.14", "fd10::14"}},
		{ns: "apps", name: "p15", node: "n01.nodes.example.com", ann: kv("internal-hostname", h("p15-int")), ips: []string{"10.244.0.15", "fd10::15"}},
		{ns: "apps", name: "p16", ann: kv("hostname", h("p16"))}, // pending: no node, no IP
		{ns: "apps", name: "p17", node: "n01.nodes.example.com", ann: kv("internal-hostname", h("p17-int"), "ttl", "abc"), ips: []string{"10.244.0.17"}},
		{ns: "apps", name: "p18", node: "n01.nodes.example.com", labels: edge, ann: kv("internal-hostname", h("p18-int")), ips: []string{"10.244.0.18"}},
		{ns: "other", name: "p19", node: "n01.nodes.example.com", ann: kv("internal-hostname", h("p19-int")), ips: []string{"10.244.1.19"}},
		{ns: "apps", name: "p20", node: "n03.nodes.example.com", ann: kv("hostname", h("p20a")+", "+h("p20b")), ips: []string{"10.244.0.20"}},
		{ns: "apps", name: "p21", node: "n01.nodes.example.com", ann: kv("internal-hostname", h("p21-int"), "set-identifier", "blue"), ips: []string{"10.244.0.21"}},
		{ns: "apps", name: "p22", node: "n04.nodes.example.com", hostNetwork: true, ips: []string{"10.0.0.4"}},
		{ns: "other", name: "p23", node: "n15.nodes.example.com", hostNetwork: true, ann: kv("hostname", h("p23"), "ttl", "90"), ips: []string{"10.0.0.15", "fd00::15"}},
	}
	return nodes, pods
}

// createNodePodFixture creates the fixture, setting node addresses and pod IPs through the status
// subresource as kubelets would.
func createNodePodFixture(ctx context.Context, c kubernetes.Interface, nodes []fixtureNode, pods []fixturePod) error {
	for _, ns := range []string{"apps", "other"} {
		_, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	types := map[string]corev1.NodeAddressType{"ext": corev1.NodeExternalIP, "int": corev1.NodeInternalIP, "host": corev1.NodeHostName}
	for _, fn := range nodes {
		n, err := c.CoreV1().Nodes().Create(ctx, &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: fn.name, Labels: fn.labels, Annotations: fn.ann},
			Spec:       corev1.NodeSpec{Unschedulable: fn.unschedulable},
		}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		for _, a := range fn.addrs {
			typ, addr, _ := strings.Cut(a, ":")
			n.Status.Addresses = append(n.Status.Addresses, corev1.NodeAddress{Type: types[typ], Address: addr})
		}
		if _, err := c.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("node %s: %w", fn.name, err)
		}
	}
	for _, fp := range pods {
		p, err := c.CoreV1().Pods(fp.ns).Create(ctx, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fp.name, Labels: fp.labels, Annotations: fp.ann},
			Spec: corev1.PodSpec{NodeName: fp.node, HostNetwork: fp.hostNetwork,
				Containers: []corev1.Container{{Name: "c", Image: "registry.example/none"}}},
		}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		if len(fp.ips) == 0 {
			continue
		}
		p.Status.Phase = corev1.PodRunning
		p.Status.PodIP = fp.ips[0]
		for _, ip := range fp.ips {
			p.Status.PodIPs = append(p.Status.PodIPs, corev1.PodIP{IP: ip})
		}
		if _, err := c.CoreV1().Pods(fp.ns).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("pod %s/%s: %w", fp.ns, fp.name, err)
		}
	}
	return nil
}

// podResourceLabel is the one thing zonekeeper's ownership TXT records of pods carry that external-dns's
// do not: the pod's name (external-dns's pod source sets no resource label). The comparison strips it
// and counts it.
var podResourceLabel = regexp.MustCompile(`,external-dns/resource=pod/[a-z0-9-]+/[a-z0-9-]+`)

// nodePodPin is an intended difference: records of names matching re are only written by one side.
type nodePodPin struct {
	onlyED bool
	re     *regexp.Regexp
	why    string
	// v021 limits the pin to external-dns v0.21 (v0.23 behaves as zonekeeper).
	v021 bool
}

// TestNodePodSourcesMatchExternalDNS creates the fixture on a real API server, runs every built
// external-dns version and zonekeeper once each with the same flags, each into its own empty etcd
// prefix, and compares the record sets record by record (name, type, TTL, targets, ownership TXT), for
// seven flag sets.
func TestNodePodSourcesMatchExternalDNS(t *testing.T) {
	peers := testbed.ExternalDNSPeers(t)
	kube := testbed.StartKubeAPIServer(t)
	etcd := testbed.StartEtcd(t)
	t.Setenv("ETCD_URLS", etcd.Endpoint) // the coredns provider reads it from the process environment
	nodes, pods := nodePodFixture()
	if err := createNodePodFixture(context.Background(), kube.Client(t), nodes, pods); err != nil {
		t.Fatal(err)
	}
	base := []string{"--provider=coredns", "--registry=txt", "--txt-owner-id=diff", "--policy=sync",
		"--domain-filter=example.com", "--kubeconfig=" + kube.Kubeconfig, "--source=node", "--source=pod"}
	controllerPin := nodePodPin{onlyED: true, v021: true, re: regexp.MustCompile(`p10\b`),
		why: "the controller annotation on a pod: v0.21 ignores it, v0.23 and zonekeeper honour it"}
	templatePin := nodePodPin{onlyED: true, re: regexp.MustCompile(`(^|-)p\d\d\.hn\.example\.com$`),
		why: "--ignore-non-host-network-pods: external-dns still publishes --fqdn-template names of other pods"}
	pendingPin := nodePodPin{onlyED: true, re: regexp.MustCompile(`^cname-p16\.pods\.example\.com$`),
		why: "a pending pod (no IP) under --pod-source-domain: external-dns writes the ownership TXT of a CNAME without target"}
	// Several objects asking for one name with different ttl annotations: external-dns keeps them
	// apart (its merge key includes the TTL) and then publishes one of the groups; zonekeeper merges
	// every target under the first object's TTL.
	ttlMergePins := []nodePodPin{
		{onlyED: true, re: regexp.MustCompile(`^(apps|other)\.ns\.example\.com$`), why: "ttl split (external-dns)"},
		{re: regexp.MustCompile(`^(apps|other)\.ns\.example\.com$`), why: "ttl merge (zonekeeper)"},
	}
	emptyLabelPin := nodePodPin{onlyED: true, re: regexp.MustCompile(`^(a-|aaaa-)?\.?ns\.example\.com$`),
		why: "a --fqdn-template name with an empty label (a node's .Namespace): external-dns writes it, zonekeeper reports it"}
	ignoreHostnamePin := []nodePodPin{
		{onlyED: true, re: regexp.MustCompile(`\.pods\.example\.com$`),
			why: "--ignore-hostname-annotation: external-dns's pod source still reads the hostname annotations"},
		{re: regexp.MustCompile(`\.ih\.example\.com$`),
			why: "--ignore-hostname-annotation: zonekeeper uses --fqdn-template for pods whose hostname annotations it ignores"},
	}
	for i, set := range []struct {
		flags []string
		pins  []nodePodPin
	}{
		{nil, []nodePodPin{controllerPin}},
		{[]string{"--fqdn-template={{.Name}}.tmpl.example.com"}, []nodePodPin{controllerPin}},
		{[]string{"--fqdn-template={{.Name}}.tmpl.example.com,{{.Namespace}}.ns.example.com", "--combine-fqdn-annotation", "--expose-internal-ipv6"},
			append([]nodePodPin{controllerPin, emptyLabelPin}, ttlMergePins...)},
		{[]string{"--pod-source-domain=pods.example.com", "--namespace=apps"}, []nodePodPin{controllerPin, pendingPin}},
		{[]string{"--ignore-non-host-network-pods", "--fqdn-template={{.Name}}.hn.example.com", "--no-exclude-unschedulable"},
			[]nodePodPin{templatePin}},
		{[]string{"--label-filter=pool=edge", "--no-exclude-unschedulable"}, nil},
		{[]string{"--annotation-filter=external-dns.alpha.kubernetes.io/ttl", "--namespace=other"}, nil},
		{[]string{"--ignore-hostname-annotation", "--fqdn-template={{.Name}}.ih.example.com"}, append([]nodePodPin{controllerPin}, ignoreHostnamePin...)},
	} {
		for _, peer := range peers {
			t.Run(fmt.Sprintf("%s flags %d %v", peer.Version, i, set.flags), func(t *testing.T) {
				args := append(append([]string{}, base...), set.flags...)
				edP, zkP := fmt.Sprintf("/ed%d%s/", i, peer.Version), fmt.Sprintf("/zk%d%s/", i, peer.Version)
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				start := time.Now()
				cmd := exec.CommandContext(ctx, peer.Binary, append(append(args, peer.Args...), "--once", "--log-level=debug", "--coredns-prefix="+edP)...)
				cmd.Env = append(os.Environ(), "ETCD_URLS="+etcd.Endpoint)
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("external-dns: %v\n%s", err, tail(string(out), 6000))
				}
				edTime := time.Since(start)
				start = time.Now()
				var log bytes.Buffer
				if code := app.Main(ctx, append(args, "--once", "--coredns-prefix="+zkP), &bytes.Buffer{}, &log, os.Getenv); code != 0 {
					t.Fatalf("zonekeeper exited %d:\n%s", code, tail(log.String(), 6000))
				}
				t.Logf("external-dns %s, zonekeeper %s", edTime.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
				ed, zkRaw := recordSet(t, etcd.Endpoint, edP), recordSet(t, etcd.Endpoint, zkP)
				zk := map[string]bool{}
				podTXT := 0
				for r := range zkRaw {
					s := podResourceLabel.ReplaceAllString(r, "")
					if s != r {
						podTXT++
					}
					zk[s] = true
				}
				var unexpected []string
				pinned := map[int]int{}
				check := func(r string, onlyED bool) {
					name := strings.Fields(r)[0]
					for k, p := range set.pins {
						if p.onlyED == onlyED && p.re.MatchString(name) && (!p.v021 || peer.Version == "v0.21.0") {
							pinned[k]++
							return
						}
					}
					side := "only zonekeeper:   "
					if onlyED {
						side = "only external-dns: "
					}
					unexpected = append(unexpected, side+r)
				}
				for r := range ed {
					if !zk[r] {
						check(r, true)
					}
				}
				for r := range zk {
					if !ed[r] {
						check(r, false)
					}
				}
				sort.Strings(unexpected)
				if len(unexpected) > 0 {
					t.Errorf("%d records differ (%d records from external-dns):\n%s\nexternal-dns log:\n%s\nzonekeeper log:\n%s",
						len(unexpected), len(ed), strings.Join(unexpected, "\n"), tail(string(out), 3000), tail(log.String(), 3000))
				}
				for k, p := range set.pins {
					if pinned[k] == 0 && (!p.v021 || peer.Version == "v0.21.0") {
						t.Errorf("the pinned difference %q did not show: is its fixture case gone?", p.why)
					}
				}
				if i == 0 {
					if len(ed) < 60 {
						t.Errorf("external-dns published only %d records from the fixture: %v", len(ed), ed)
					}
					if podTXT == 0 {
						t.Error("zonekeeper's ownership records of pods do not name the pod")
					}
				}
				t.Logf("%d records compared, pinned differences %v", len(ed), pinned)
			})
		}
	}

	// A node that has not reported addresses yet fails external-dns's whole node source (no record
	// for any node, and --once exits); zonekeeper skips that node and publishes the others.
	bare := []fixtureNode{
		{name: "n23.nodes.example.com", labels: map[string]string{"pool": "bare"}},
		{name: "n24.nodes.example.com", labels: map[string]string{"pool": "bare"}, addrs: []string{"ext:203.0.113.24"}},
	}
	if err := createNodePodFixture(context.Background(), kube.Client(t), bare, nil); err != nil {
		t.Fatal(err)
	}
	for _, peer := range peers {
		t.Run(peer.Version+" node without addresses", func(t *testing.T) {
			args := append(append([]string{}, base[:len(base)-1]...), "--label-filter=pool=bare") // --source=node only
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			edP, zkP := "/edbare"+peer.Version+"/", "/zkbare"+peer.Version+"/"
			cmd := exec.CommandContext(ctx, peer.Binary, append(append(args, peer.Args...), "--once", "--coredns-prefix="+edP)...)
			cmd.Env = append(os.Environ(), "ETCD_URLS="+etcd.Endpoint)
			out, err := cmd.CombinedOutput()
			if err == nil || !strings.Contains(string(out), "could not find node address for n23.nodes.example.com") {
				t.Errorf("external-dns did not fail on the node without addresses (err %v):\n%s", err, tail(string(out), 3000))
			}
			if ed := recordSet(t, etcd.Endpoint, edP); len(ed) != 0 {
				t.Errorf("external-dns published %v", ed)
			}
			var log bytes.Buffer
			if code := app.Main(ctx, append(args, "--once", "--coredns-prefix="+zkP), &bytes.Buffer{}, &log, os.Getenv); code != 0 {
				t.Fatalf("zonekeeper exited %d:\n%s", code, tail(log.String(), 6000))
			}
			zk := recordSet(t, etcd.Endpoint, zkP)
			if !zk["n24.nodes.example.com A 0 203.0.113.24"] || len(zk) != 2 {
				t.Errorf("zonekeeper published %v, want n24's A record and its TXT", zk)
			}
		})
	}
}

// A running zonekeeper publishes nodes and pods to CoreDNS, follows a node's new address (for the
// node's record and for the pod on it), and tells the objects what it did: Published Events on the
// Node (cluster-scoped: the Event lands in "default") and the Pod, and the bad annotations named.
func TestNodeAndPodSourcesOnCoreDNSWithEvents(t *testing.T) {
	e := startEnv(t)
	nodes := []fixtureNode{{name: "w1.example.com", ann: kv("ttl", "soon"), addrs: []string{"ext:192.0.2.61", "int:10.0.0.61"}}}
	pods := []fixturePod{{ns: "apps", name: "web", node: "w1.example.com",
		ann: kv("hostname", "web.example.com", "internal-hostname", "web-int.example.com", "set-identifier", "blue"), ips: []string{"10.244.0.61"}}}
	if err := createNodePodFixture(context.Background(), e.client, nodes, pods); err != nil {
		t.Fatal(err)
	}
	e.start(t, "--source=node", "--source=pod", "--txt-owner-id=e2e", "--policy=sync")
	e.expectAnswer(t, converge, "w1.example.com", dns.TypeA, "192.0.2.61")
	e.expectAnswer(t, converge, "web.example.com", dns.TypeA, "192.0.2.61")
	e.expectAnswer(t, converge, "web-int.example.com", dns.TypeA, "10.244.0.61")
	e.expectAnswer(t, converge, "a-w1.example.com", dns.TypeTXT, ownership("e2e", "node/w1.example.com"))
	e.expectEvent(t, "", "Node", "w1.example.com", "Published", "w1.example.com A 192.0.2.61")
	e.expectEvent(t, "", "Node", "w1.example.com", "InvalidAnnotation", "external-dns.alpha.kubernetes.io/ttl", "soon")
	e.expectEvent(t, "apps", "Pod", "web", "Published", "web.example.com A 192.0.2.61")
	e.expectEvent(t, "apps", "Pod", "web", "InvalidAnnotation", "external-dns.alpha.kubernetes.io/set-identifier")

	n, err := e.client.CoreV1().Nodes().Get(context.Background(), "w1.example.com", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeExternalIP, Address: "192.0.2.62"}}
	if _, err := e.client.CoreV1().Nodes().UpdateStatus(context.Background(), n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.expectAnswer(t, converge, "w1.example.com", dns.TypeA, "192.0.2.62")
	e.expectAnswer(t, converge, "web.example.com", dns.TypeA, "192.0.2.62")
}
