package deploy

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"

	"github.com/zonekeeper/zonekeeper/internal/app"
	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// chartInstall is one release rendered, applied, and impersonated.
type chartInstall struct {
	objs []*unstructured.Unstructured
	sa   *serviceAccountIdentity
	args []string // the container's args as rendered
}

func installChart(t *testing.T, c *cluster, r chartRender) *chartInstall {
	t.Helper()
	objs := mustHelmTemplate(t, r)
	c.apply(t, objs)
	d := deployment(t, objs)
	return &chartInstall{objs: objs, sa: c.impersonate(t, r.namespace, d.Spec.Template.Spec.ServiceAccountName), args: container(t, d).Args}
}

// runArgsOnce runs zonekeeper in-process with args plus --once, as the ServiceAccount.
func runArgsOnce(t *testing.T, sa *serviceAccountIdentity, args []string, timeout time.Duration) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	full := append(slices.Clone(args), "--kubeconfig="+sa.kubeconfig, "--once")
	code := app.Main(ctx, full, &stdout, &stderr, func(string) string { return "" })
	return code, stdout.String(), stderr.String()
}

// viewZone returns the records printed for one view by an inmemory --once run.
func viewZone(stdout, view string) string {
	_, after, ok := strings.Cut(stdout, "; view "+view+"\n")
	if !ok {
		return ""
	}
	if next := strings.Index(after, "; view "); next >= 0 {
		after = after[:next]
	}
	return after
}

// forbidden says whether the API server refused a call with 403.
func forbidden(err error) bool { return apierrors.IsForbidden(err) }

// publicAddressValues: an internal and an external view, the ingress source only (so the service
// source's node rules cannot hide a missing public-address rule), the inmemory provider.
func publicAddressValues(lookup string) string {
	return `
provider: inmemory
sources: [ingress]
txtOwnerId: pa
policy: sync
views:
  - name: internal
  - name: external
    targets: public
publicAddress:
  ` + lookup + `
`
}

// TestChartRunsAsServiceAccount runs the chart's own command lines in-process as the chart's
// ServiceAccount against a real kube-apiserver: the public-address lookups (Node, Service), the crd
// source with its status writes, and the built-in DNS server answering per view. Each RBAC rule these
// add is shown needed (taking it away breaks exactly that feature) and no wider than needed.
func TestChartRunsAsServiceAccount(t *testing.T) {
	c := startCluster(t)
	admin := c.kube.Client(t)
	ctx := context.Background()
	c.ensureNamespace(t, "web")
	createIngress(t, admin, "web", "web", "web.example.com", "192.168.1.50")

	t.Run("public-address-from-node", func(t *testing.T) {
		createNode(t, admin, "edge-1", "203.0.113.7")
		createNode(t, admin, "other-node", "203.0.113.8")
		in := installChart(t, c, chartRender{release: "pa", namespace: "pa-dns", values: publicAddressValues("fromNode: edge-1")})
		sa := in.sa.client(t)

		if _, err := sa.CoreV1().Nodes().Get(ctx, "edge-1", metav1.GetOptions{}); err != nil {
			t.Errorf("get the named Node: %v", err)
		}
		if _, err := sa.CoreV1().Nodes().Get(ctx, "other-node", metav1.GetOptions{}); !forbidden(err) {
			t.Errorf("get another Node: want 403, got %v", err)
		}
		if _, err := sa.CoreV1().Nodes().List(ctx, metav1.ListOptions{}); !forbidden(err) {
			t.Errorf("list nodes: want 403, got %v", err)
		}
		if _, err := sa.CoreV1().Services("kube-system").Get(ctx, "any", metav1.GetOptions{}); !forbidden(err) {
			t.Errorf("fromNode grants nothing on Services: want 403, got %v", err)
		}

		code, stdout, stderr := runArgsOnce(t, in.sa, in.args, 20*time.Second)
		if code != 0 {
			t.Fatalf("the chart's command line exited %d as its ServiceAccount\n%s", code, stderr)
		}
		wantRecord(t, viewZone(stdout, "internal"), "web.example.com.", "192.168.1.50", stdout)
		wantRecord(t, viewZone(stdout, "external"), "web.example.com.", "203.0.113.7", stdout)

		// Without the binding the Node cannot be read: no public address, nothing external.
		withoutBinding(t, c, in.sa, "ClusterRoleBinding", "", "pa-zonekeeper-public-address",
			access{verb: "get", resource: "nodes", name: "edge-1"}, func() {
				_, stdout, stderr := runArgsOnce(t, in.sa, in.args, 20*time.Second)
				if strings.Contains(viewZone(stdout, "external"), "203.0.113.7") {
					t.Errorf("the external view got the Node's address without the rule:\n%s", stdout)
				}
				if !strings.Contains(stderr, "Public address lookup failed") || !strings.Contains(stderr, "forbidden") {
					t.Errorf("the log does not say the Node lookup was forbidden:\n%s", stderr)
				}
			})
	})

	t.Run("public-address-from-service", func(t *testing.T) {
		c.ensureNamespace(t, "edge")
		createLoadBalancer(t, admin, "edge", "router", "198.51.100.9")
		createLoadBalancer(t, admin, "edge", "other", "198.51.100.10")
		in := installChart(t, c, chartRender{release: "ps", namespace: "ps-dns", values: publicAddressValues("fromService: edge/router")})
		sa := in.sa.client(t)

		if _, err := sa.CoreV1().Services("edge").Get(ctx, "router", metav1.GetOptions{}); err != nil {
			t.Errorf("get the named Service: %v", err)
		}
		if _, err := sa.CoreV1().Services("edge").Get(ctx, "other", metav1.GetOptions{}); !forbidden(err) {
			t.Errorf("get another Service: want 403, got %v", err)
		}
		if _, err := sa.CoreV1().Services("edge").List(ctx, metav1.ListOptions{}); !forbidden(err) {
			t.Errorf("list services: want 403, got %v", err)
		}
		if _, err := sa.CoreV1().Nodes().Get(ctx, "edge-1", metav1.GetOptions{}); !forbidden(err) {
			t.Errorf("fromService grants nothing on Nodes: want 403, got %v", err)
		}

		code, stdout, stderr := runArgsOnce(t, in.sa, in.args, 20*time.Second)
		if code != 0 {
			t.Fatalf("the chart's command line exited %d as its ServiceAccount\n%s", code, stderr)
		}
		wantRecord(t, viewZone(stdout, "external"), "web.example.com.", "198.51.100.9", stdout)

		withoutBinding(t, c, in.sa, "RoleBinding", "edge", "ps-zonekeeper-public-address",
			access{verb: "get", resource: "services", namespace: "edge", name: "router"}, func() {
				_, stdout, stderr := runArgsOnce(t, in.sa, in.args, 20*time.Second)
				if strings.Contains(viewZone(stdout, "external"), "198.51.100.9") {
					t.Errorf("the external view got the Service's address without the rule:\n%s", stdout)
				}
				if !strings.Contains(stderr, "forbidden") {
					t.Errorf("the log does not say the Service lookup was forbidden:\n%s", stderr)
				}
			})
	})

	t.Run("crd-status", func(t *testing.T) { checkCRDSource(t, c) })

	t.Run("builtin-serves-views", func(t *testing.T) {
		in := installChart(t, c, chartRender{release: "bi", namespace: "bi-dns", values: `
provider: builtin
sources: [ingress]
domainFilters: [example.com]
txtOwnerId: bi
policy: sync
views:
  - name: internal
    subnets: [127.0.0.1/32]
  - name: external
    targets: public
    ttl: 300
publicAddress:
  static: [203.0.113.7]
`})
		// The chart's args, with the listen and metrics addresses moved to free loopback ports.
		port := testbed.FreePort(t)
		var args []string
		for _, a := range in.args {
			switch {
			case strings.HasPrefix(a, "--builtin-listen="):
				a = fmt.Sprintf("--builtin-listen=127.0.0.1:%d", port)
			case strings.HasPrefix(a, "--metrics-address="):
				a = fmt.Sprintf("--metrics-address=127.0.0.1:%d", testbed.FreePort(t))
			}
			args = append(args, a)
		}
		wantArgs(t, args, "--view-subnets=internal=127.0.0.1/32", "--view-targets=external=public")
		runCtx, cancel := context.WithCancel(ctx)
		log := &testbed.LogBuffer{}
		done := make(chan int, 1)
		go func() {
			done <- app.Main(runCtx, append(args, "--kubeconfig="+in.sa.kubeconfig), &bytes.Buffer{}, log, func(string) string { return "" })
		}()
		defer func() {
			cancel()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				t.Error("zonekeeper did not stop")
			}
			if t.Failed() {
				t.Logf("zonekeeper log:\n%s", log.String())
			}
		}()
		server := fmt.Sprintf("127.0.0.1:%d", port)
		expect := func(from, network, want string, ttl uint32) {
			t.Helper()
			waitFor(t, 20*time.Second, fmt.Sprintf("web.example.com A %s from %s over %s", want, from, network), func() bool {
				rr, err := lookupA(from, network, server, "web.example.com.")
				return err == nil && len(rr) == 1 && rr[0].A.String() == want && (ttl == 0 || rr[0].Hdr.Ttl == ttl)
			})
		}
		expect("127.0.0.1", "udp", "192.168.1.50", 0)
		expect("127.0.0.1", "tcp", "192.168.1.50", 0)
		expect("127.0.0.2", "udp", "203.0.113.7", 300)
		expect("127.0.0.2", "tcp", "203.0.113.7", 300)
	})
}

// checkCRDSource installs the chart's CRD and a release with the crd source, creates one DNSEndpoint,
// and runs zonekeeper as the release's ServiceAccount: the record is published and
// status.observedGeneration written; without the status rule the record is still published but the
// status is not written; without the read rule the run fails naming dnsendpoints.
func checkCRDSource(t *testing.T, c *cluster) {
	c.apply(t, decodeObjects(t, readFile(t, "charts/zonekeeper/crds/dnsendpoints.externaldns.k8s.io.yaml")))
	c.waitForKind(t, "externaldns.k8s.io", "DNSEndpoint")
	in := installChart(t, c, chartRender{release: "crd", namespace: "crd-dns", set: []string{
		"provider=inmemory", "sources={crd}", "txtOwnerId=crd", "policy=sync"}})
	c.ensureNamespace(t, "crd-apps")
	res := c.dynamic.Resource(source.DNSEndpointResource()).Namespace("crd-apps")
	ctx := context.Background()
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "externaldns.k8s.io/v1alpha1", "kind": "DNSEndpoint",
		"metadata": map[string]any{"name": "api"},
		"spec": map[string]any{"endpoints": []any{map[string]any{
			"dnsName": "api.example.com", "recordType": "A", "targets": []any{"192.0.2.30"}}}},
	}}
	if _, err := res.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	run := func() (int, string, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var stdout, stderr bytes.Buffer
		code := app.Main(ctx, []string{"--kubeconfig=" + in.sa.kubeconfig, "--source=crd", "--provider=inmemory", "--once"},
			&stdout, &stderr, func(string) string { return "" })
		return code, stdout.String(), stderr.String()
	}
	observed := func() int64 {
		o, err := res.Get(ctx, "api", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		g, _, _ := unstructured.NestedInt64(o.Object, "status", "observedGeneration")
		return g
	}
	code, stdout, stderr := run()
	if code != 0 {
		t.Fatalf("--source=crd as the chart's ServiceAccount exited %d\n%s", code, stderr)
	}
	wantRecord(t, stdout, "api.example.com.", "192.0.2.30", stdout)
	if g := observed(); g != 1 {
		t.Errorf("status.observedGeneration = %d after the run, want 1\n%s", g, stderr)
	}

	// The chart grants patch on the status and nothing else that writes.
	for _, a := range []access{
		{verb: "update", group: "externaldns.k8s.io", resource: "dnsendpoints", subresource: "status", namespace: "crd-apps", name: "api"},
		{verb: "update", group: "externaldns.k8s.io", resource: "dnsendpoints", namespace: "crd-apps", name: "api"},
		{verb: "patch", group: "externaldns.k8s.io", resource: "dnsendpoints", namespace: "crd-apps", name: "api"},
		{verb: "create", group: "externaldns.k8s.io", resource: "dnsendpoints", namespace: "crd-apps"},
		{verb: "delete", group: "externaldns.k8s.io", resource: "dnsendpoints", namespace: "crd-apps", name: "api"},
	} {
		if c.allowed(t, in.sa, a) {
			t.Errorf("%s is allowed; the crd source needs only read and status patch", a)
		}
	}

	role := typed[rbacv1.ClusterRole](t, find(t, in.objs, "ClusterRole", "crd-zonekeeper"))
	ruleFor := func(resource string) int {
		i := slices.IndexFunc(role.Rules, func(r rbacv1.PolicyRule) bool { return slices.Equal(r.Resources, []string{resource}) })
		if i < 0 {
			t.Fatalf("no rule for %s in %+v", resource, role.Rules)
		}
		return i
	}

	// Without the status rule: the record is published, the status is not written, and the log says so.
	obj, err := res.Get(ctx, "api", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_ = unstructured.SetNestedSlice(obj.Object, []any{map[string]any{
		"dnsName": "api.example.com", "recordType": "A", "targets": []any{"192.0.2.31"}}}, "spec", "endpoints")
	if _, err := res.Update(ctx, obj, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	statusPatch := access{verb: "patch", group: "externaldns.k8s.io", resource: "dnsendpoints", subresource: "status", namespace: "crd-apps", name: "api"}
	withoutRule(t, c, in.sa, "crd-zonekeeper", ruleFor("dnsendpoints/status"), statusPatch, func() {
		code, stdout, stderr := run()
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		wantRecord(t, stdout, "api.example.com.", "192.0.2.31", stdout)
		if g := observed(); g != 1 {
			t.Errorf("observedGeneration became %d without the status rule", g)
		}
		if !strings.Contains(stderr, "Cannot write DNSEndpoint status") {
			t.Errorf("the log does not report the failed status write:\n%s", stderr)
		}
	})

	// Without the read rule the source cannot start.
	list := access{verb: "list", group: "externaldns.k8s.io", resource: "dnsendpoints"}
	withoutRule(t, c, in.sa, "crd-zonekeeper", ruleFor("dnsendpoints"), list, func() {
		code, _, stderr := run()
		if code == 0 {
			t.Fatal("zonekeeper succeeded without list/watch on dnsendpoints")
		}
		if !strings.Contains(stderr, "dnsendpoints") {
			t.Errorf("the failure does not name dnsendpoints:\n%s", stderr)
		}
	})

	// With every rule back, the new generation is observed.
	if code, _, stderr := run(); code != 0 || observed() != 2 {
		t.Errorf("after restoring the rules: exit %d, observedGeneration %d\n%s", code, observed(), stderr)
	}
}

func wantRecord(t testing.TB, zone, name, target, all string) {
	t.Helper()
	for _, line := range strings.Split(zone, "\n") {
		f := strings.Fields(line)
		if len(f) == 5 && f[0] == name && f[3] == "A" && f[4] == target {
			return
		}
	}
	t.Errorf("no %s A %s in:\n%s", name, target, all)
}

// withoutBinding deletes a (Cluster)RoleBinding for the duration of f, waiting until the authorizer
// refuses probe, and creates it again afterwards.
func withoutBinding(t *testing.T, c *cluster, sa *serviceAccountIdentity, kind, namespace, name string, probe access, f func()) {
	t.Helper()
	ctx := context.Background()
	rbac := c.kube.Client(t).RbacV1()
	switch kind {
	case "ClusterRoleBinding":
		b, err := rbac.ClusterRoleBindings().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := rbac.ClusterRoleBindings().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		defer func() {
			b.ResourceVersion = ""
			if _, err := rbac.ClusterRoleBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}()
	case "RoleBinding":
		b, err := rbac.RoleBindings(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := rbac.RoleBindings(namespace).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		defer func() {
			b.ResourceVersion = ""
			if _, err := rbac.RoleBindings(namespace).Create(ctx, b, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}()
	default:
		t.Fatalf("unknown binding kind %s", kind)
	}
	c.waitAllowed(t, sa, probe, false)
	f()
}

func createNode(t *testing.T, admin kubernetes.Interface, name, externalIP string) {
	t.Helper()
	ctx := context.Background()
	n, err := admin.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "192.168.1.10"}, {Type: corev1.NodeExternalIP, Address: externalIP}}
	if _, err := admin.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func createLoadBalancer(t *testing.T, admin kubernetes.Interface, namespace, name, ip string) {
	t.Helper()
	ctx := context.Background()
	svc, err := admin.CoreV1().Services(namespace).Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{{Port: 443}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: ip}}
	if _, err := admin.CoreV1().Services(namespace).UpdateStatus(ctx, svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func createIngress(t *testing.T, admin kubernetes.Interface, namespace, name, host, ip string) {
	t.Helper()
	ctx := context.Background()
	ing, err := admin.NetworkingV1().Ingresses(namespace).Create(ctx, &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: host}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ing.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: ip}}
	if _, err := admin.NetworkingV1().Ingresses(namespace).UpdateStatus(ctx, ing, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// lookupA asks server for name's A records from a given loopback source address (the built-in server
// picks the view by it), over udp or tcp.
func lookupA(from, network, server, name string) ([]*dns.A, error) {
	var local net.Addr = &net.UDPAddr{IP: net.ParseIP(from)}
	if network == "tcp" {
		local = &net.TCPAddr{IP: net.ParseIP(from)}
	}
	cl := &dns.Client{Net: network, Timeout: 2 * time.Second, Dialer: &net.Dialer{LocalAddr: local, Timeout: 2 * time.Second}}
	m := new(dns.Msg)
	m.SetQuestion(name, dns.TypeA)
	r, _, err := cl.Exchange(m, server)
	if err != nil {
		return nil, err
	}
	var out []*dns.A
	for _, rr := range r.Answer {
		if a, ok := rr.(*dns.A); ok {
			out = append(out, a)
		}
	}
	return out, nil
}
