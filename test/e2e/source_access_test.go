package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/app"
	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// seedClusterRoleRules is the ClusterRole of the external-dns seed deployment that users copy,
// verbatim: no EndpointSlices (external-dns read Endpoints then).
func seedClusterRoleRules() []rbacv1.PolicyRule {
	verbs := []string{"get", "watch", "list"}
	return []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"services", "pods", "nodes"}, Verbs: verbs},
		{APIGroups: []string{"extensions", "networking.k8s.io"}, Resources: []string{"ingresses"}, Verbs: verbs},
		{APIGroups: []string{"networking.istio.io"}, Resources: []string{"gateways"}, Verbs: verbs},
	}
}

// bindUser gives user a ClusterRole with these rules; it returns a function that replaces the rules.
func (e *env) bindUser(t *testing.T, user string, rules []rbacv1.PolicyRule) func([]rbacv1.PolicyRule) {
	t.Helper()
	ctx := context.Background()
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: user}, Rules: rules}
	if _, err := e.client.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: user},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: user},
		Subjects:   []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: user}},
	}
	if _, err := e.client.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return func(rules []rbacv1.PolicyRule) {
		r, err := e.client.RbacV1().ClusterRoles().Get(ctx, user, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		r.Rules = rules
		if _, err := e.client.RbacV1().ClusterRoles().Update(ctx, r, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// createHeadless creates a headless service with a hostname annotation and one ready EndpointSlice
// address.
func (e *env) createHeadless(t *testing.T, name, hostname, ip string) {
	t.Helper()
	ctx := context.Background()
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default",
			Annotations: map[string]string{"external-dns.alpha.kubernetes.io/hostname": hostname}},
		Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Ports: []corev1.ServicePort{{Port: 5432}}},
	}
	if _, err := e.client.CoreV1().Services("default").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ready := true
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Name: name + "-1", Namespace: "default", Labels: map[string]string{discoveryv1.LabelServiceName: name}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}},
	}
	if _, err := e.client.DiscoveryV1().EndpointSlices("default").Create(ctx, slice, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// runOnceAs runs zonekeeper --once with a kubeconfig and returns the exit code and the log.
func runOnceAs(t *testing.T, kubeconfig string, flags ...string) (int, string) {
	t.Helper()
	log := &testbed.LogBuffer{}
	args := append([]string{"--kubeconfig=" + kubeconfig, "--provider=coredns", "--registry=txt", "--txt-owner-id=default",
		"--domain-filter=example.com", "--once", "--log-level=debug"}, flags...)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	start := time.Now()
	code := app.Main(ctx, args, &bytes.Buffer{}, log, os.Getenv)
	if time.Since(start) > 60*time.Second {
		t.Errorf("--once took %s: the wait for a forbidden cache must be short", time.Since(start))
	}
	return code, log.String()
}

// Issue 11 defect 4: with the seed deployment's ClusterRole, --source=service --source=ingress either
// works or names what is missing, publishes everything else, and never hangs.
func TestSeedClusterRoleNamesWhatIsMissing(t *testing.T) {
	e := startEnv(t)
	e.createIngress(t, ingress("web", "default", nil, "web.example.com"), "192.0.2.1")
	e.createService(t, loadBalancer("lb", "default", map[string]string{"external-dns.alpha.kubernetes.io/hostname": "lb.example.com"}), "192.0.2.2")
	e.createHeadless(t, "db", "db.example.com", "10.1.0.5")

	// First published with full rights: the headless service's record exists.
	if code, log := runOnceAs(t, e.kube.Kubeconfig, "--source=service", "--source=ingress"); code != 0 {
		t.Fatalf("admin run: exit %d\n%s", code, tail(log, 4000))
	}
	e.expectAnswer(t, converge, "db.example.com", dns.TypeA, "10.1.0.5")

	update := e.bindUser(t, "seed", seedClusterRoleRules())
	seed := e.kube.KubeconfigAs(t, "seed")
	e.createIngress(t, ingress("new", "default", nil, "new.example.com"), "192.0.2.3")
	code, log := runOnceAs(t, seed, "--source=service", "--source=ingress")
	if code == 0 {
		t.Errorf("--once with endpointslices forbidden exited 0: the missing permission must fail the run\n%s", tail(log, 4000))
	}
	for _, want := range []string{"list, watch on endpointslices.discovery.k8s.io", "headless Services are not published"} {
		if !strings.Contains(log, want) {
			t.Errorf("the log does not say %q:\n%s", want, tail(log, 4000))
		}
	}
	// Everything else is published, and the headless service's record is kept, not deleted.
	e.expectAnswer(t, converge, "new.example.com", dns.TypeA, "192.0.2.3")
	e.expectAnswer(t, converge, "lb.example.com", dns.TypeA, "192.0.2.2")
	e.expectAnswer(t, converge, "db.example.com", dns.TypeA, "10.1.0.5")

	// The controller says so in readiness and the metric, and recovers by itself once RBAC is fixed.
	in := e.startWith(t, seed, "--source=service", "--source=ingress", "--txt-owner-id=default", "--interval=1m")
	in.expectUnready(t, "endpointslices.discovery.k8s.io")
	if _, body, _ := in.get("/metrics"); !strings.Contains(body, `zonekeeper_source_unavailable{source="service"} 1`) {
		t.Errorf("metrics lack zonekeeper_source_unavailable for service:\n%s", grepLines(body, "source_unavailable"))
	}
	update(append(seedClusterRoleRules(), rbacv1.PolicyRule{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: []string{"get", "list", "watch"}}))
	e.createHeadless(t, "cache", "cache.example.com", "10.1.0.6")
	e.expectAnswer(t, 3*time.Minute, "cache.example.com", dns.TypeA, "10.1.0.6")
	testbed.Eventually(t, 30*time.Second, "ready again", func() error {
		code, body, err := in.get("/readyz")
		if err != nil || code != 200 {
			return fmt.Errorf("readyz %d %q %v", code, body, err)
		}
		return nil
	})
	if _, body, _ := in.get("/metrics"); !strings.Contains(body, `zonekeeper_source_unavailable{source="service"} 0`) {
		t.Errorf("metrics still show the service source unavailable:\n%s", grepLines(body, "source_unavailable"))
	}
}

// Issue 10 item 5: a source whose CRD is not installed neither hangs nor stops the others; it starts
// by itself once the CRD is installed.
func TestSourceWaitsForItsCRD(t *testing.T) {
	e := startEnv(t)
	e.createIngress(t, ingress("web", "default", nil, "web.example.com"), "192.0.2.1")
	in := e.start(t, "--source=crd", "--source=ingress", "--txt-owner-id=default", "--interval=1m")
	e.expectAnswer(t, converge, "web.example.com", dns.TypeA, "192.0.2.1")
	in.expectUnready(t, "dnsendpoints")
	if _, body, _ := in.get("/metrics"); !strings.Contains(body, `zonekeeper_source_unavailable{source="crd"} 1`) {
		t.Errorf("metrics lack zonekeeper_source_unavailable for crd:\n%s", grepLines(body, "source_unavailable"))
	}
	if n := strings.Count(in.log.String(), "Source cannot run fully"); n != 1 {
		t.Errorf("the missing CRD was logged %d times, want once", n)
	}
	dyn := e.installCRD(t)
	obj := dnsEndpointObject("later", map[string]any{"dnsName": "later.example.com", "recordType": "A", "targets": []any{"192.0.2.9"}})
	if _, err := dyn.Resource(source.DNSEndpointResource()).Namespace("default").Create(context.Background(), obj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.expectAnswer(t, 3*time.Minute, "later.example.com", dns.TypeA, "192.0.2.9")
	if !in.running() {
		t.Fatal("zonekeeper stopped")
	}
}

// expectUnready waits until /readyz answers not ready with a reason containing what.
func (in *instance) expectUnready(t *testing.T, what string) {
	t.Helper()
	testbed.Eventually(t, 30*time.Second, "readiness names "+what, func() error {
		code, body, err := in.get("/readyz")
		if err != nil {
			return err
		}
		if code == 200 || !strings.Contains(body, what) {
			return fmt.Errorf("readyz %d %q", code, body)
		}
		return nil
	})
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
