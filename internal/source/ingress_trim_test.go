package source

import (
	"encoding/json"
	"reflect"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"
)

// richIngress is memIngress with what an Ingress may also carry that no source reads: a default
// backend, a second rule with its own paths, and ports on its load balancer address.
func richIngress(i int) *networkingv1.Ingress {
	ing := memIngress(i)
	ing.Spec.DefaultBackend = &networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
		Name: "default-http-backend", Port: networkingv1.ServiceBackendPort{Name: "http"}}}
	second := ing.Spec.Rules[0]
	second.Host = "www." + second.Host
	second.HTTP = second.HTTP.DeepCopy()
	ing.Spec.Rules = append(ing.Spec.Rules, second, networkingv1.IngressRule{}) // a rule without a host
	ing.Status.LoadBalancer.Ingress = append(ing.Status.LoadBalancer.Ingress, networkingv1.IngressLoadBalancerIngress{
		Hostname: "lb.example.net", Ports: []networkingv1.IngressPortStatus{{Port: 443, Protocol: "TCP"}}})
	ing.Status.LoadBalancer.Ingress[0].Ports = []networkingv1.IngressPortStatus{{Port: 80, Protocol: "TCP"}}
	return ing
}

func TestTrimObjectDropsIngressPathsBackendsAndPorts(t *testing.T) {
	raw := richIngress(7)
	got, err := trimObject(raw.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	ing := got.(*networkingv1.Ingress)
	if ing.Spec.DefaultBackend != nil {
		t.Errorf("spec.defaultBackend kept: %+v", ing.Spec.DefaultBackend)
	}
	if len(ing.Spec.Rules) != len(raw.Spec.Rules) {
		t.Fatalf("%d rules cached, want all %d (a problem names spec.rules[i] by the object's index)", len(ing.Spec.Rules), len(raw.Spec.Rules))
	}
	for i, r := range ing.Spec.Rules {
		if r.HTTP != nil {
			t.Errorf("spec.rules[%d].http kept", i)
		}
		if r.Host != raw.Spec.Rules[i].Host {
			t.Errorf("spec.rules[%d].host %q, want %q", i, r.Host, raw.Spec.Rules[i].Host)
		}
	}
	for i, lb := range ing.Status.LoadBalancer.Ingress {
		if lb.Ports != nil {
			t.Errorf("status.loadBalancer.ingress[%d].ports kept", i)
		}
		if lb.IP != raw.Status.LoadBalancer.Ingress[i].IP || lb.Hostname != raw.Status.LoadBalancer.Ingress[i].Hostname {
			t.Errorf("status.loadBalancer.ingress[%d] = %+v, want the address of %+v", i, lb, raw.Status.LoadBalancer.Ingress[i])
		}
	}
	// What the sources read stays as it was: TLS, class, labels, annotations but kubectl's copy.
	if !reflect.DeepEqual(ing.Spec.TLS, raw.Spec.TLS) || !reflect.DeepEqual(ing.Spec.IngressClassName, raw.Spec.IngressClassName) ||
		!reflect.DeepEqual(ing.Labels, raw.Labels) || ing.Annotations["nginx.ingress.kubernetes.io/proxy-body-size"] != "16m" {
		t.Errorf("trimmed away something the sources read:\n got %+v\n raw %+v", ing, raw)
	}
}

// TestTrimmedIngressGivesTheSameEndpoints: the Ingress source makes the same endpoints and problems of
// the trimmed object as of the whole one, under configurations that read rules, TLS and status.
func TestTrimmedIngressGivesTheSameEndpoints(t *testing.T) {
	for _, cfg := range []Config{DefaultConfig(), {IgnoreIngressTLSSpec: true}, {IgnoreIngressRulesSpec: true}} {
		c, err := compile(cfg)
		if err != nil {
			t.Fatal(err)
		}
		raw := richIngress(3)
		raw.Spec.Rules[1].Host = "bad_host..example.com" // a problem names spec.rules[1].host
		trimmed, _ := trimObject(raw.DeepCopy())
		var p1, p2 problemList
		want := c.ingressEndpoints(raw, &p1)
		got := c.ingressEndpoints(trimmed.(*networkingv1.Ingress), &p2)
		if len(want) == 0 {
			t.Fatal("the fixture makes no endpoints")
		}
		if !reflect.DeepEqual(render(got), render(want)) || !reflect.DeepEqual(p1.items, p2.items) {
			t.Errorf("%+v: trimmed Ingress gives\n %v %v\nthe whole one\n %v %v", cfg, render(got), p2.items, render(want), p1.items)
		}
	}
}

// TestTrimmedIngressBytes measures the live heap a cached Ingress of two paths a rule holds (as
// TestInformerCacheBytesPerObject decodes it) through trimObject and through the transform as it was
// before it trimmed Ingresses (managed fields and kubectl's copy only), and fails unless the paths'
// share is gone.
func TestTrimmedIngressBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap")
	}
	const n = 2000
	metaOnly := func(obj any) (any, error) {
		m, err := meta.Accessor(obj)
		if err != nil {
			return nil, err
		}
		m.SetManagedFields(nil)
		ann := m.GetAnnotations()
		delete(ann, lastAppliedAnnotation)
		m.SetAnnotations(ann)
		return obj, nil
	}
	fill := func(transform func(any) (any, error)) float64 {
		return heapPerObject(t, n, func(idx cache.Indexer, i int) {
			wire, err := json.Marshal(richIngress(i))
			if err != nil {
				t.Fatal(err)
			}
			obj := &networkingv1.Ingress{}
			if err := json.Unmarshal(wire, obj); err != nil {
				t.Fatal(err)
			}
			o, err := transform(obj)
			if err != nil {
				t.Fatal(err)
			}
			if err := idx.Add(o); err != nil {
				t.Fatal(err)
			}
		})
	}
	before, after := fill(metaOnly), fill(trimObject)
	t.Logf("cached Ingress (2 rules of 2 paths, a default backend, 2 load balancer addresses with ports): %.0f B before, %.0f B now (%.0f%% less)",
		before, after, 100*(1-after/before))
	if after > before*0.8 {
		t.Errorf("%.0f bytes per cached Ingress, %.0f with managed fields and kubectl's copy dropped only: the paths, backends and ports are still cached", after, before)
	}
}
