package source

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"unsafe"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
)

// decoded is obj as a reflector hands it over: decoded from its own JSON, sharing no string.
func decoded[T any](t *testing.T, obj *T) *T {
	t.Helper()
	wire, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	out := new(T)
	if err := json.Unmarshal(wire, out); err != nil {
		t.Fatal(err)
	}
	return out
}

func sameData(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }

// TestInformerTransformChangesNoValue: the factories' transforms give objects equal to what cutting
// them down alone gives (sharing strings changes no value a source reads), and two objects of one
// namespace then share their namespace, label and annotation keys, common values, Ingress class and
// load balancer address.
func TestInformerTransformChangesNoValue(t *testing.T) {
	cutDown := func(obj any) any {
		out, err := trimObject(slimNode(obj))
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, tc := range []struct {
		kind      string
		transform func() func(any) (any, error)
		pair      func() (runtime.Object, runtime.Object) // two objects of one namespace, each decoded on its own
	}{
		{"Ingress", func() func(any) (any, error) { return informerTransform() }, func() (runtime.Object, runtime.Object) {
			return decoded(t, memIngress(1)), decoded(t, memIngress(41))
		}},
		{"Ingress with paths, backends and ports", func() func(any) (any, error) { return informerTransform() }, func() (runtime.Object, runtime.Object) {
			return decoded(t, richIngress(1)), decoded(t, richIngress(41))
		}},
		{"Service", func() func(any) (any, error) { return nodePodTransform() }, func() (runtime.Object, runtime.Object) {
			return decoded(t, memService(1)), decoded(t, memService(41))
		}},
		{"Pod", func() func(any) (any, error) { return nodePodTransform() }, func() (runtime.Object, runtime.Object) {
			return decoded(t, memPod(1)), decoded(t, memPod(41))
		}},
		{"Node", func() func(any) (any, error) { return nodePodTransform() }, func() (runtime.Object, runtime.Object) {
			return decoded(t, memNode(1)), decoded(t, memNode(41))
		}},
	} {
		transform := tc.transform()
		a, b := tc.pair()
		wantA := cutDown(a.DeepCopyObject())
		gotA, err := transform(a)
		if err != nil {
			t.Fatal(err)
		}
		gotB, err := transform(b)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(gotA, wantA) {
			t.Errorf("%s: the transform gives\n %+v\ncutting it down gives\n %+v", tc.kind, gotA, wantA)
		}
		ma, _ := meta.Accessor(gotA)
		mb, _ := meta.Accessor(gotB)
		if ma.GetNamespace() != "" && !sameData(ma.GetNamespace(), mb.GetNamespace()) {
			t.Errorf("%s: namespace %q not shared", tc.kind, ma.GetNamespace())
		}
		for k, v := range ma.GetLabels() {
			for k2, v2 := range mb.GetLabels() {
				if k == k2 && (!sameData(k, k2) || v == v2 && !sameData(v, v2)) {
					t.Errorf("%s: label %s=%s not shared", tc.kind, k, v)
				}
			}
		}
		for k := range ma.GetAnnotations() {
			for k2 := range mb.GetAnnotations() {
				if k == k2 && !sameData(k, k2) {
					t.Errorf("%s: annotation key %s not shared", tc.kind, k)
				}
			}
		}
		switch a := gotA.(type) {
		case *networkingv1.Ingress:
			b := gotB.(*networkingv1.Ingress)
			if a.Spec.IngressClassName != b.Spec.IngressClassName {
				t.Errorf("%s: class %q not shared", tc.kind, *a.Spec.IngressClassName)
			}
			if !sameData(a.Status.LoadBalancer.Ingress[0].IP, b.Status.LoadBalancer.Ingress[0].IP) {
				t.Errorf("%s: load balancer address not shared", tc.kind)
			}
			if !sameData(a.Spec.TLS[0].Hosts[0], a.Spec.Rules[0].Host) {
				t.Errorf("%s: TLS host %q a copy of the rule's", tc.kind, a.Spec.TLS[0].Hosts[0])
			}
		}
	}
}

// TestStringTableIsBounded: strings that each belong to one object (UIDs, names) never make a table
// grow past its bound.
func TestStringTableIsBounded(t *testing.T) {
	tab := newStringTable()
	for i := range 3 * stringTableSize {
		s := fmt.Sprintf("3f2a1c9e-5b7d-4e8f-9a0b-%012d", i)
		if got := tab.get(s); got != s {
			t.Fatalf("get(%q) = %q", s, got)
		}
		if got := tab.ptr(&s); *got != s {
			t.Fatalf("ptr(%q) = %q", s, *got)
		}
	}
	if len(tab.strings) > stringTableSize || len(tab.ptrs) > stringTableSize {
		t.Errorf("table holds %d strings and %d pointers, bound %d", len(tab.strings), len(tab.ptrs), stringTableSize)
	}
}
