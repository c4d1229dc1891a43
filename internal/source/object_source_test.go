package source

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// TestIngressEventsNameTheirObject runs the Ingress source against a real kube-apiserver behind the
// wrappers the app puts around it (a second kind in a Multi, post-processing): every create,
// update and delete reaches an object handler with the Ingress's resource label; a Service event
// names the Service; and ObjectEndpoints gives exactly the endpoints Endpoints gives for the object.
func TestIngressEventsNameTheirObject(t *testing.T) {
	if testing.Short() {
		t.Skip("starts kube-apiserver")
	}
	api := testbed.StartKubeAPIServer(t)
	client := api.Client(t) // creates the objects
	kc := api.Kube(t)       // what the sources read through
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	ings, err := NewIngress(ctx, kc, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	svcs, err := NewService(ctx, kc, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	src := PostProcess(NewMulti(ings, svcs), PostProcessConfig{}).(ObjectSource)
	if got := src.ObjectKinds(); !slices.Equal(got, []string{"ingress", "service"}) {
		t.Fatalf("ObjectKinds %v, want [ingress service]", got)
	}
	named := make(chan string, 100)
	src.AddObjectHandler(func(resource string) { named <- resource })
	expect := func(what, want string) {
		t.Helper()
		select {
		case got := <-named:
			if got != want {
				t.Fatalf("%s: event names %q, want %q", what, got, want)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: no event", what)
		}
	}

	ing, err := client.NetworkingV1().Ingresses("default").Create(ctx, ingress("site", nil, []string{"site.example.com", "www.example.com"}), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	expect("create", "ingress/default/site")
	ing.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: "203.0.113.7"}}
	if _, err := client.NetworkingV1().Ingresses("default").UpdateStatus(ctx, ing, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	expect("status update", "ingress/default/site")

	res, err := src.ObjectEndpoints(ctx, []string{"ingress/default/site"})
	if err != nil {
		t.Fatal(err)
	}
	full, err := src.Endpoints(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := render(res.Endpoints), render(full.Endpoints); !slices.Equal(got, want) || len(got) != 2 {
		t.Fatalf("ObjectEndpoints %v, Endpoints %v: want the same two", got, want)
	}

	if _, err := client.CoreV1().Services("default").Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "db"},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{{Port: 80}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	expect("service create", "service/default/db")

	if err := client.NetworkingV1().Ingresses("default").Delete(ctx, "site", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	expect("delete", "ingress/default/site")
	res, err = src.ObjectEndpoints(ctx, []string{"ingress/default/site"})
	if err != nil || len(res.Endpoints) != 0 {
		t.Fatalf("a deleted Ingress has %v (%v); want none", render(res.Endpoints), err)
	}
}
