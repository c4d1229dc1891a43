package istio

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/source/sourcetest"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// Over the whole fixture: a Service's event names the Gateways whose selector matches it (for the
// VirtualService source, the VirtualServices bound to those), a Gateway's names the VirtualServices
// whose spec.gateways resolve to it — never everything — and the named objects' ObjectEndpoints give
// what Endpoints publishes there. Real events for a Service's new address and a Gateway's annotation.
func TestIstioEventsNameTheObjectsThatReadThem(t *testing.T) {
	api, kube, dyn := sourcetest.StartClusterServer(t, testbed.InstallIstio, fixture()...)
	env := source.Env{Kube: api.Kube(t), Dynamic: dyn}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	gwBuilt, err := GatewayKind().New(ctx, env)
	if err != nil {
		t.Fatal(err)
	}
	vsBuilt, err := VirtualServiceKind().New(ctx, env)
	if err != nil {
		t.Fatal(err)
	}
	gws, vss := gwBuilt.(*Source), vsBuilt.(*Source)
	service := func(name string) *corev1.Service {
		t.Helper()
		svc, err := kube.CoreV1().Services("istio-system").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return svc
	}
	sorted := func(in []string) []string { out := slices.Clone(in); slices.Sort(out); return out }
	for _, tc := range []struct {
		what      string
		got, want []string
	}{
		{"Service internal, Gateway source", gws.serviceDependents(service("internal")), []string{"gateway/istio-system/internal"}},
		{"Service ingress, Gateway source", gws.serviceDependents(service("ingress")), []string{"gateway/istio-system/bad",
			"gateway/istio-system/other-controller", "gateway/istio-system/public", "gateway/istio-system/targeted",
			"gateway/istio-system/via-ingress", "gateway/team-b/local"}},
		{"Service internal, VirtualService source", vss.serviceDependents(service("internal")), nil},
		{"Service ingress-v6, VirtualService source", vss.serviceDependents(service("ingress-v6")), []string{
			"virtualservice/team-a/bound", "virtualservice/team-a/foreign", "virtualservice/team-a/hostname",
			"virtualservice/team-a/ns-host", "virtualservice/team-a/private", "virtualservice/team-a/refs",
			"virtualservice/team-a/tmpl", "virtualservice/team-a/unbound", "virtualservice/team-b/local",
			"virtualservice/team-c/gw-ns", "virtualservice/team-c/ns-host"}},
	} {
		if got := sorted(tc.got); !slices.Equal(got, tc.want) {
			t.Errorf("%s names %q, want %q", tc.what, got, tc.want)
		}
		sourcetest.ObjectEndpointsMatch(t, gws, slices.DeleteFunc(slices.Clone(tc.want), func(r string) bool { return r[0] != 'g' }))
		sourcetest.ObjectEndpointsMatch(t, vss, slices.DeleteFunc(slices.Clone(tc.want), func(r string) bool { return r[0] != 'v' }))
	}

	gwNamed, vsNamed := make(chan string, 100), make(chan string, 100)
	gws.AddObjectHandler(func(r string) { gwNamed <- r })
	vss.AddObjectHandler(func(r string) { vsNamed <- r })
	svc := service("internal")
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.98"}}
	if _, err := kube.CoreV1().Services("istio-system").UpdateStatus(ctx, svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	sourcetest.ExpectNamed(t, gwNamed, "Service internal's new address (Gateway source)", "gateway/istio-system/internal")
	res := dyn.Resource(GatewayResource).Namespace("team-b")
	u, err := res.Get(ctx, "local", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	u.SetAnnotations(map[string]string{sourcetest.AnnotationPrefix + "target": "203.0.113.5"})
	if _, err := res.Update(ctx, u, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	want := []string{"virtualservice/team-a/foreign", "virtualservice/team-b/local", "virtualservice/team-c/gw-ns"}
	sourcetest.ExpectNamed(t, vsNamed, "Gateway team-b/local's target (VirtualService source)", want...)
	sourcetest.ObjectEndpointsMatch(t, vss, want)
}
