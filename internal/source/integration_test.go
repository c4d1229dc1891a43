package source

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// TestInformerSourcesAgainstAPIServer runs the informer sources against a real kube-apiserver. No
// controllers run there, so the test sets load-balancer status itself, as a cloud controller would.
func TestInformerSourcesAgainstAPIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts kube-apiserver")
	}
	api := testbed.StartKubeAPIServer(t)
	client := api.Client(t) // creates the objects
	kc := api.Kube(t)       // what the sources read through
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	svc, err := client.CoreV1().Services("default").Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Annotations: map[string]string{
			PrefixAlpha + "hostname": "web.example.com",
			PrefixGA + "ttl":         "120",
			lastAppliedAnnotation:    `{"big":"blob"}`,
		}},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{{Port: 80}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "203.0.113.10"}}
	if _, err := client.CoreV1().Services("default").UpdateStatus(ctx, svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// A headless service whose addresses come from an EndpointSlice (no pods: nothing would run them).
	if _, err := client.CoreV1().Services("default").Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "db", Annotations: map[string]string{PrefixGA + "hostname": "db.example.com"}},
		Spec:       corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Ports: []corev1.ServicePort{{Port: 5432}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ready := true
	if _, err := client.DiscoveryV1().EndpointSlices("default").Create(ctx, &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Name: "db-1", Labels: map[string]string{discoveryv1.LabelServiceName: "db"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"10.2.0.1"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ing, err := client.NetworkingV1().Ingresses("default").Create(ctx, &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Name: "site"},
		Spec:       networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: "site.example.com"}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ing.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{Hostname: "lb.example.net"}}
	if _, err := client.NetworkingV1().Ingresses("default").UpdateStatus(ctx, ing, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	services, err := NewService(ctx, kc, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	ingresses, err := NewIngress(ctx, kc, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	events := make(chan struct{}, 100)
	notify := func() {
		select {
		case events <- struct{}{}:
		default:
		}
	}
	all := NewMulti(services, ingresses)
	all.AddEventHandler(notify)

	want := []string{
		"db.example.com A 10.2.0.1 res=service/default/db",
		"site.example.com CNAME lb.example.net res=ingress/default/site",
		"web.example.com A 203.0.113.10 ttl=120 res=service/default/web",
	}
	testbed.Eventually(t, 20*time.Second, "sources catch up", func() error { return sameEndpoints(ctx, all, want) })

	// The transform dropped managedFields and last-applied-configuration from the cache.
	cached, err := services.services.Services("default").Get("web")
	if err != nil {
		t.Fatal(err)
	}
	if len(cached.ManagedFields) != 0 || cached.Annotations[lastAppliedAnnotation] != "" {
		t.Errorf("cache keeps managedFields (%d) or last-applied (%q)", len(cached.ManagedFields), cached.Annotations[lastAppliedAnnotation])
	}

	// A status change fires the handler and shows in the next Endpoints call.
	drain(events)
	svc, err = client.CoreV1().Services("default").Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "203.0.113.99"}}
	if _, err := client.CoreV1().Services("default").UpdateStatus(ctx, svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, events, "service status update")
	want[2] = "web.example.com A 203.0.113.99 ttl=120 res=service/default/web"
	testbed.Eventually(t, 20*time.Second, "sources catch up", func() error { return sameEndpoints(ctx, all, want) })

	// Deleting the ingress fires the handler and removes its records.
	drain(events)
	if err := client.NetworkingV1().Ingresses("default").Delete(ctx, "site", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, events, "ingress delete")
	testbed.Eventually(t, 20*time.Second, "sources catch up", func() error { return sameEndpoints(ctx, all, []string{want[0], want[2]}) })

	// An EndpointSlice change reaches the service source too.
	drain(events)
	slice, err := client.DiscoveryV1().EndpointSlices("default").Get(ctx, "db-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	slice.Endpoints = append(slice.Endpoints, discoveryv1.Endpoint{Addresses: []string{"10.2.0.2"}})
	if _, err := client.DiscoveryV1().EndpointSlices("default").Update(ctx, slice, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, events, "endpointslice update")
	testbed.Eventually(t, 20*time.Second, "sources catch up", func() error {
		return sameEndpoints(ctx, all, []string{"db.example.com A 10.2.0.1,10.2.0.2 res=service/default/db", want[2]})
	})
}

// A constructor must give up when its context ends before the caches sync.
func TestNewServiceGivesUpWithContext(t *testing.T) {
	if testing.Short() {
		t.Skip("starts kube-apiserver")
	}
	api := testbed.StartKubeAPIServer(t)
	cfg := *api.Config
	cfg.BearerToken = "not-a-valid-token" // every list fails with 401
	client, err := kubeForConfig(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err = NewService(ctx, client, Config{ServiceTypeFilter: []string{"LoadBalancer"}})
	if err == nil || !strings.Contains(err.Error(), "services") {
		t.Fatalf("NewService: %v, want an error naming the services cache", err)
	}
}

func sameEndpoints(ctx context.Context, s Source, want []string) error {
	r, err := s.Endpoints(ctx)
	if err != nil {
		return err
	}
	if len(r.Problems) > 0 {
		return fmt.Errorf("problems: %v", r.Problems)
	}
	got := strings.Join(render(r.Endpoints), "\n")
	if got != strings.Join(want, "\n") {
		return fmt.Errorf("got:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	return nil
}

func drain(ch chan struct{}) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

func waitEvent(t *testing.T, ch chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(20 * time.Second):
		t.Fatalf("no event handler call after %s", what)
	}
}
