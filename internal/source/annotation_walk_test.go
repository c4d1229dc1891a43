package source

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	corelisters "k8s.io/client-go/listers/core/v1"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/source/annotationwalk"
)

// Issue 11 item 7: nothing a user sets may be ignored silently. Every annotation key zonekeeper
// accepts is set, under both prefixes, on a LoadBalancer Service and on an Ingress that already publish
// a name: either the endpoints change (names, targets, TTL, set identifier, properties), or the object
// is left to another controller, or a problem names the annotation. An unknown key under the prefix is
// a problem too.
func TestEveryAnnotationChangesBehaviourOrIsReported(t *testing.T) {
	values := annotationwalk.Values()
	keys := append(AnnotationKeys(), annotationwalk.Typo)
	for _, k := range keys {
		if _, ok := values[k]; !ok {
			t.Errorf("annotation %q has no value in annotationWalkValues: add one", k)
		}
	}
	node := func(ann map[string]string) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "walk.example.org", Annotations: ann},
			Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeExternalIP, Address: "192.0.2.20"}}}}
	}
	objects := map[string]func(map[string]string) []runtime.Object{
		"Service": func(ann map[string]string) []runtime.Object {
			if ann[alpha+"hostname"] == "" && ann[ga+"hostname"] == "" {
				ann[alpha+"hostname"] = "walk.example.org"
			}
			return []runtime.Object{lbService("walk", ann, corev1.LoadBalancerIngress{IP: "192.0.2.10"})}
		},
		"Ingress": func(ann map[string]string) []runtime.Object {
			return []runtime.Object{ingress("walk", ann, []string{"walk.example.org"}, ingLB("192.0.2.10"))}
		},
		"Node": func(ann map[string]string) []runtime.Object { return []runtime.Object{node(ann)} },
		"Pod": func(ann map[string]string) []runtime.Object {
			if ann[alpha+"hostname"] == "" && ann[ga+"hostname"] == "" {
				ann[alpha+"hostname"] = "pod.example.org"
			}
			return []runtime.Object{node(nil), &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: "walk", Namespace: "default", Annotations: ann},
				Spec:       corev1.PodSpec{NodeName: "walk.example.org", HostNetwork: true},
				Status:     corev1.PodStatus{PodIP: "10.0.0.5", PodIPs: []corev1.PodIP{{IP: "10.0.0.5"}}},
			}}
		},
	}
	kinds := []string{"Service", "Ingress", "Node", "Pod"}
	var silent []string
	for _, kind := range kinds {
		base := runAllKinds(t, DefaultConfig(), objects[kind](map[string]string{}))
		if len(base.Endpoints) == 0 || len(base.Problems) != 0 {
			t.Fatalf("%s baseline: %v %v", kind, render(base.Endpoints), base.Problems)
		}
		for _, k := range keys {
			for _, prefix := range []string{alpha, ga} {
				full := prefix + k
				r := runAllKinds(t, DefaultConfig(), objects[kind](map[string]string{full: values[k]}))
				switch {
				case slices.ContainsFunc(r.Problems, func(p endpoint.Problem) bool { return strings.Contains(p.Field, full) }):
				case fmt.Sprint(render(r.Endpoints)) != fmt.Sprint(render(base.Endpoints)):
				default:
					silent = append(silent, fmt.Sprintf("%s %s=%q", kind, full, values[k]))
				}
			}
		}
	}
	sort.Strings(silent)
	if len(silent) > 0 {
		t.Errorf("annotations with no effect and no problem reported:\n  %s", strings.Join(silent, "\n  "))
	}
}

// runAllKinds is run with the node and pod sources too: each publishes only its own kind's objects.
func runAllKinds(t *testing.T, cfg Config, objs []runtime.Object) Result {
	t.Helper()
	res := run(t, cfg, objs...)
	c, err := compile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	m := newManifestObjects(cfg.Namespace)
	for _, o := range objs {
		m.add(o, nil, "test")
	}
	nodes := corelisters.NewNodeLister(m.nodes)
	for _, s := range []Source{&NodeSource{c: c, nodes: nodes}, &PodSource{c: c, pods: corelisters.NewPodLister(m.pods), nodes: nodes}} {
		r, err := s.Endpoints(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		res.Endpoints = append(res.Endpoints, r.Endpoints...)
		res.Problems = append(res.Problems, r.Problems...)
	}
	return res
}
