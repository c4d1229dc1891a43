package deploy

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/zonekeeper/zonekeeper/internal/app"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

const (
	rbacRelease   = "zk"
	rbacNamespace = "dns"
	appsNamespace = "apps"
	leaseName     = "zk-zonekeeper" // the chart's default: the release's full name
)

// rbacValues is a production-shaped install: both sources, two replicas (so leader election and its
// Role), the inmemory provider so zonekeeper can run here without a DNS server.
const rbacValues = `
provider: inmemory
sources: [service, ingress]
replicaCount: 2
txtOwnerId: rbac-test
policy: sync
`

// TestChartRBACLive applies the chart to a real kube-apiserver and acts as its ServiceAccount: every
// read zonekeeper needs works, every write it must not do is forbidden, zonekeeper runs end to end as
// that identity, and removing any one rule breaks it.
func TestChartRBACLive(t *testing.T) {
	c := startCluster(t)
	objs := mustHelmTemplate(t, chartRender{release: rbacRelease, namespace: rbacNamespace, values: rbacValues})
	c.apply(t, objs)
	sa := c.impersonate(t, rbacNamespace, "zk-zonekeeper")
	admin := c.kube.Client(t)
	createWorkload(t, c, admin)

	t.Run("reads-and-permitted-writes", func(t *testing.T) { checkPermitted(t, sa.client(t)) })
	t.Run("forbidden-writes", func(t *testing.T) { checkForbidden(t, admin, sa.client(t)) })

	t.Run("zonekeeper-once", func(t *testing.T) {
		code, stdout, stderr := runOnce(t, sa, 20*time.Second)
		if code != 0 {
			t.Fatalf("zonekeeper as the chart's ServiceAccount exited %d\n%s", code, stderr)
		}
		for _, name := range []string{"web.example.com.", "shop.example.com."} {
			if !strings.Contains(stdout, name) {
				t.Errorf("zone lacks %s: the source did not read its object\n%s", name, stdout)
			}
		}
	})

	// Each read rule is needed: without it the run fails and names the kind it could not list.
	role := typed[rbacv1.ClusterRole](t, find(t, objs, "ClusterRole", "zk-zonekeeper"))
	for i, rule := range role.Rules {
		if !slices.Equal(rule.Verbs, []string{"get", "list", "watch"}) {
			continue
		}
		res := rule.Resources[0]
		t.Run("without-"+res, func(t *testing.T) {
			probe := access{verb: "list", group: rule.APIGroups[0], resource: res}
			withoutRule(t, c, sa, "zk-zonekeeper", i, probe, func() {
				code, _, stderr := runOnce(t, sa, 5*time.Second)
				if code == 0 {
					t.Fatalf("zonekeeper succeeded without list/watch on %s: the rule is not needed", res)
				}
				if !strings.Contains(stderr, res) {
					t.Errorf("the failure does not name %s:\n%s", res, stderr)
				}
			})
		})
	}

	// Leases: with the leader-election Role, a replica becomes the leader; without it, never.
	t.Run("leader-election", func(t *testing.T) {
		run := startController(t, sa)
		run.waitLog(t, 20*time.Second, "Became the leader")
		run.stop(t)

		bindings := admin.RbacV1().RoleBindings(rbacNamespace)
		rb, err := bindings.Get(context.Background(), "zk-zonekeeper-leader-election", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := bindings.Delete(context.Background(), rb.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		lease := access{verb: "update", group: "coordination.k8s.io", resource: "leases", namespace: rbacNamespace, name: leaseName}
		c.waitAllowed(t, sa, lease, false)
		// Let the lease of the first run expire so a permitted replica could take it at once.
		_ = admin.CoordinationV1().Leases(rbacNamespace).Delete(context.Background(), leaseName, metav1.DeleteOptions{})
		run = startController(t, sa)
		time.Sleep(6 * time.Second) // three retry periods
		if strings.Contains(run.log.String(), "Became the leader") {
			t.Error("became the leader without the lease rules")
		}
		run.stop(t)
		rb.ResourceVersion = ""
		if _, err := bindings.Create(context.Background(), rb, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		c.waitAllowed(t, sa, lease, true)
	})

	// Events: the leader tells the Service's owner what it published; without the events rules it cannot.
	t.Run("events", func(t *testing.T) {
		published := func() int {
			list, err := admin.CoreV1().Events(appsNamespace).List(context.Background(), metav1.ListOptions{FieldSelector: "reason=Published"})
			if err != nil {
				t.Fatal(err)
			}
			return len(list.Items)
		}
		clearEvents := func() {
			if err := admin.CoreV1().Events(appsNamespace).DeleteCollection(context.Background(), metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		clearEvents()
		run := startController(t, sa)
		waitFor(t, 20*time.Second, "a Published event in "+appsNamespace, func() bool { return published() > 0 })
		run.stop(t)

		clearEvents()
		// zonekeeper records through core/v1; only that rule is taken away.
		coreEvents := slices.IndexFunc(role.Rules, func(r rbacv1.PolicyRule) bool {
			return slices.Equal(r.APIGroups, []string{""}) && slices.Equal(r.Resources, []string{"events"})
		})
		probe := access{verb: "create", resource: "events", namespace: appsNamespace}
		withoutRule(t, c, sa, "zk-zonekeeper", coreEvents, probe, func() {
			run := startController(t, sa)
			run.waitLog(t, 20*time.Second, "Became the leader")
			time.Sleep(3 * time.Second) // long after the first reconcile published its records
			if n := published(); n != 0 {
				t.Errorf("%d Published events written without the events rules", n)
			}
			run.stop(t)
		})
	})
}

// createWorkload makes what the sources publish, plus objects of kinds zonekeeper must not touch.
func createWorkload(t *testing.T, c *cluster, admin kubernetes.Interface) {
	t.Helper()
	ctx := context.Background()
	c.ensureNamespace(t, appsNamespace)
	svc, err := admin.CoreV1().Services(appsNamespace).Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Annotations: map[string]string{"external-dns.alpha.kubernetes.io/hostname": "web.example.com"}},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{{Port: 80}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}
	if _, err := admin.CoreV1().Services(appsNamespace).UpdateStatus(ctx, svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	ing, err := admin.NetworkingV1().Ingresses(appsNamespace).Create(ctx, &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Name: "shop"},
		Spec:       networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: "shop.example.com"}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ing.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: "192.0.2.20"}}
	if _, err := admin.NetworkingV1().Ingresses(appsNamespace).UpdateStatus(ctx, ing, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.CoreV1().Secrets(appsNamespace).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "db"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.CoreV1().ConfigMaps(appsNamespace).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-0"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "example.invalid/web"}}}}
	if _, err := admin.CoreV1().Pods(appsNamespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	other := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "another-controller"}}
	if _, err := admin.CoordinationV1().Leases(rbacNamespace).Create(ctx, other, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// checkPermitted makes, as the ServiceAccount, every call zonekeeper's RBAC is meant to allow.
func checkPermitted(t *testing.T, sa kubernetes.Interface) {
	ctx := context.Background()
	list := metav1.ListOptions{Limit: 1}
	calls := map[string]func() error{
		"list services":       func() error { _, err := sa.CoreV1().Services("").List(ctx, list); return err },
		"list pods":           func() error { _, err := sa.CoreV1().Pods("").List(ctx, list); return err },
		"list nodes":          func() error { _, err := sa.CoreV1().Nodes().List(ctx, list); return err },
		"list endpointslices": func() error { _, err := sa.DiscoveryV1().EndpointSlices("").List(ctx, list); return err },
		"list ingresses":      func() error { _, err := sa.NetworkingV1().Ingresses("").List(ctx, list); return err },
		"get service": func() error {
			_, err := sa.CoreV1().Services(appsNamespace).Get(ctx, "web", metav1.GetOptions{})
			return err
		},
		"watch services": func() error {
			w, err := sa.CoreV1().Services("").Watch(ctx, metav1.ListOptions{})
			if err == nil {
				w.Stop()
			}
			return err
		},
		"watch ingresses": func() error {
			w, err := sa.NetworkingV1().Ingresses("").Watch(ctx, metav1.ListOptions{})
			if err == nil {
				w.Stop()
			}
			return err
		},
		"create event (core/v1)": func() error {
			_, err := sa.CoreV1().Events(appsNamespace).Create(ctx, &corev1.Event{
				ObjectMeta:     metav1.ObjectMeta{GenerateName: "web."},
				InvolvedObject: corev1.ObjectReference{Kind: "Service", Namespace: appsNamespace, Name: "web"},
				Reason:         "Test", Message: "rbac test", Type: corev1.EventTypeNormal,
			}, metav1.CreateOptions{})
			return err
		},
		"create event (events.k8s.io)": func() error {
			_, err := sa.EventsV1().Events(appsNamespace).Create(ctx, &eventsv1.Event{
				ObjectMeta: metav1.ObjectMeta{GenerateName: "web-"}, EventTime: metav1.NowMicro(),
				Regarding: corev1.ObjectReference{Kind: "Service", Namespace: appsNamespace, Name: "web"},
				Reason:    "Test", Note: "rbac test", Type: corev1.EventTypeNormal, Action: "Test", ReportingController: "zonekeeper.io/test", ReportingInstance: "test",
			}, metav1.CreateOptions{})
			return err
		},
		"create, get and update the lease": func() error {
			leases := sa.CoordinationV1().Leases(rbacNamespace)
			l, err := leases.Create(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: leaseName}}, metav1.CreateOptions{})
			if err != nil {
				return err
			}
			if l, err = leases.Get(ctx, leaseName, metav1.GetOptions{}); err != nil {
				return err
			}
			holder := "test"
			l.Spec.HolderIdentity = &holder
			if _, err = leases.Update(ctx, l, metav1.UpdateOptions{}); err != nil {
				return err
			}
			return leasesCleanup(ctx, sa)
		},
	}
	for name, call := range calls {
		if err := call(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// leasesCleanup is not allowed to the ServiceAccount (no delete verb), so it only releases the lease by
// clearing its holder: the leader-election test starts from a free lease.
func leasesCleanup(ctx context.Context, sa kubernetes.Interface) error {
	leases := sa.CoordinationV1().Leases(rbacNamespace)
	l, err := leases.Get(ctx, leaseName, metav1.GetOptions{})
	if err != nil {
		return err
	}
	l.Spec.HolderIdentity = nil
	_, err = leases.Update(ctx, l, metav1.UpdateOptions{})
	return err
}

// checkForbidden makes, as the ServiceAccount, writes on what zonekeeper reads and on what it never
// needs, and requires each to be refused with 403.
func checkForbidden(t *testing.T, admin, sa kubernetes.Interface) {
	ctx := context.Background()
	svc, _ := admin.CoreV1().Services(appsNamespace).Get(ctx, "web", metav1.GetOptions{})
	ing, _ := admin.NetworkingV1().Ingresses(appsNamespace).Get(ctx, "shop", metav1.GetOptions{})
	pod, _ := admin.CoreV1().Pods(appsNamespace).Get(ctx, "web-0", metav1.GetOptions{})
	other, _ := admin.CoordinationV1().Leases(rbacNamespace).Get(ctx, "another-controller", metav1.GetOptions{})
	meta := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Name: name} }
	del := metav1.DeleteOptions{}
	calls := map[string]func() error{
		"create service": func() error {
			_, err := sa.CoreV1().Services(appsNamespace).Create(ctx, &corev1.Service{ObjectMeta: meta("x"), Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 1}}}}, metav1.CreateOptions{})
			return err
		},
		"update service": func() error {
			_, err := sa.CoreV1().Services(appsNamespace).Update(ctx, svc, metav1.UpdateOptions{})
			return err
		},
		"update service status": func() error {
			_, err := sa.CoreV1().Services(appsNamespace).UpdateStatus(ctx, svc, metav1.UpdateOptions{})
			return err
		},
		"delete service": func() error { return sa.CoreV1().Services(appsNamespace).Delete(ctx, "web", del) },
		"create ingress": func() error {
			_, err := sa.NetworkingV1().Ingresses(appsNamespace).Create(ctx, &networkingv1.Ingress{ObjectMeta: meta("x"), Spec: ing.Spec}, metav1.CreateOptions{})
			return err
		},
		"update ingress": func() error {
			_, err := sa.NetworkingV1().Ingresses(appsNamespace).Update(ctx, ing, metav1.UpdateOptions{})
			return err
		},
		"delete ingress": func() error { return sa.NetworkingV1().Ingresses(appsNamespace).Delete(ctx, "shop", del) },
		"get secret": func() error {
			_, err := sa.CoreV1().Secrets(appsNamespace).Get(ctx, "db", metav1.GetOptions{})
			return err
		},
		"list secrets": func() error { _, err := sa.CoreV1().Secrets("").List(ctx, metav1.ListOptions{}); return err },
		"create secret": func() error {
			_, err := sa.CoreV1().Secrets(appsNamespace).Create(ctx, &corev1.Secret{ObjectMeta: meta("x")}, metav1.CreateOptions{})
			return err
		},
		"delete secret":   func() error { return sa.CoreV1().Secrets(appsNamespace).Delete(ctx, "db", del) },
		"list configmaps": func() error { _, err := sa.CoreV1().ConfigMaps("").List(ctx, metav1.ListOptions{}); return err },
		"create configmap": func() error {
			_, err := sa.CoreV1().ConfigMaps(appsNamespace).Create(ctx, &corev1.ConfigMap{ObjectMeta: meta("x")}, metav1.CreateOptions{})
			return err
		},
		"update configmap": func() error {
			_, err := sa.CoreV1().ConfigMaps(appsNamespace).Update(ctx, &corev1.ConfigMap{ObjectMeta: meta("settings")}, metav1.UpdateOptions{})
			return err
		},
		"delete configmap": func() error { return sa.CoreV1().ConfigMaps(appsNamespace).Delete(ctx, "settings", del) },
		"create pod": func() error {
			_, err := sa.CoreV1().Pods(appsNamespace).Create(ctx, &corev1.Pod{ObjectMeta: meta("x"), Spec: pod.Spec}, metav1.CreateOptions{})
			return err
		},
		"update pod": func() error {
			_, err := sa.CoreV1().Pods(appsNamespace).Update(ctx, pod, metav1.UpdateOptions{})
			return err
		},
		"delete pod":  func() error { return sa.CoreV1().Pods(appsNamespace).Delete(ctx, "web-0", del) },
		"delete node": func() error { return sa.CoreV1().Nodes().Delete(ctx, "any", del) },
		"delete events": func() error {
			return sa.CoreV1().Events(appsNamespace).DeleteCollection(ctx, del, metav1.ListOptions{})
		},
		"update other lease": func() error {
			_, err := sa.CoordinationV1().Leases(rbacNamespace).Update(ctx, other, metav1.UpdateOptions{})
			return err
		},
		"delete own lease": func() error { return sa.CoordinationV1().Leases(rbacNamespace).Delete(ctx, leaseName, del) },
		"create lease elsewhere": func() error {
			_, err := sa.CoordinationV1().Leases(appsNamespace).Create(ctx, &coordinationv1.Lease{ObjectMeta: meta("x")}, metav1.CreateOptions{})
			return err
		},
		"read its own RBAC": func() error {
			_, err := sa.RbacV1().ClusterRoles().Get(ctx, "zk-zonekeeper", metav1.GetOptions{})
			return err
		},
		"create a role binding": func() error {
			_, err := sa.RbacV1().RoleBindings(appsNamespace).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: meta("x"),
				RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "cluster-admin"}}, metav1.CreateOptions{})
			return err
		},
	}
	for name, call := range calls {
		if err := call(); !apierrors.IsForbidden(err) {
			t.Errorf("%s: want 403 Forbidden, got %v", name, err)
		}
	}
}

// runOnce runs `zonekeeper --once` in-process as the ServiceAccount. The timeout bounds a run whose
// informers cannot sync (missing RBAC) — a permitted run takes well under a second.
func runOnce(t *testing.T, sa *serviceAccountIdentity, timeout time.Duration) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := app.Main(ctx, []string{
		"--kubeconfig=" + sa.kubeconfig, "--source=service", "--source=ingress", "--provider=inmemory",
		"--txt-owner-id=rbac-test", "--policy=sync", "--once",
	}, &stdout, &stderr, func(string) string { return "" })
	return code, stdout.String(), stderr.String()
}

// controllerRun is a long-running zonekeeper with leader election, as the chart's Deployment runs it.
type controllerRun struct {
	log    *testbed.LogBuffer
	cancel context.CancelFunc
	done   chan int
}

func startController(t *testing.T, sa *serviceAccountIdentity) *controllerRun {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &controllerRun{log: &testbed.LogBuffer{}, cancel: cancel, done: make(chan int, 1)}
	args := []string{
		"--kubeconfig=" + sa.kubeconfig, "--source=service", "--source=ingress", "--provider=inmemory",
		"--txt-owner-id=rbac-test", "--policy=sync", "--log-level=debug",
		fmt.Sprintf("--metrics-address=127.0.0.1:%d", testbed.FreePort(t)),
		"--leader-elect", "--leader-elect-lease-name=" + leaseName,
		"--leader-elect-lease-duration=15s", "--leader-elect-renew-deadline=10s", "--leader-elect-retry-period=2s",
	}
	// The Deployment sets POD_NAMESPACE from the downward API; the lease lives there.
	getenv := func(k string) string {
		if k == "POD_NAMESPACE" {
			return rbacNamespace
		}
		return ""
	}
	go func() { r.done <- app.Main(ctx, args, &bytes.Buffer{}, r.log, getenv) }()
	t.Cleanup(func() {
		r.stop(t)
		if t.Failed() {
			t.Logf("zonekeeper log:\n%s", r.log.String())
		}
	})
	return r
}

func (r *controllerRun) stop(t *testing.T) {
	t.Helper()
	if r.cancel == nil {
		return
	}
	r.cancel()
	r.cancel = nil
	select {
	case <-r.done:
	case <-time.After(20 * time.Second):
		t.Error("zonekeeper did not stop within 20 s of cancellation")
	}
}

func (r *controllerRun) waitLog(t *testing.T, timeout time.Duration, text string) {
	t.Helper()
	waitFor(t, timeout, "log line "+text, func() bool { return strings.Contains(r.log.String(), text) })
}

func waitFor(t *testing.T, timeout time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not seen within %s", what, timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// withoutRule removes rule i from a ClusterRole for the duration of f, waiting until the authorizer
// refuses probe, and puts it back afterwards.
func withoutRule(t *testing.T, c *cluster, sa *serviceAccountIdentity, role string, i int, probe access, f func()) {
	t.Helper()
	withoutRules(t, c, sa, role, []int{i}, probe, f)
}

func withoutRules(t *testing.T, c *cluster, sa *serviceAccountIdentity, role string, drop []int, probe access, f func()) {
	t.Helper()
	roles := c.kube.Client(t).RbacV1().ClusterRoles()
	ctx := context.Background()
	orig, err := roles.Get(ctx, role, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	reduced := orig.DeepCopy()
	reduced.Rules = nil
	for j, r := range orig.Rules {
		if !slices.Contains(drop, j) {
			reduced.Rules = append(reduced.Rules, r)
		}
	}
	if _, err := roles.Update(ctx, reduced, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	c.waitAllowed(t, sa, probe, false)
	defer func() {
		cur, err := roles.Get(ctx, role, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cur.Rules = orig.Rules
		if _, err := roles.Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		c.waitAllowed(t, sa, probe, true)
	}()
	f()
}
