package source

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

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
	objects := map[string]func(map[string]string) runtime.Object{
		"Service": func(ann map[string]string) runtime.Object {
			if ann[alpha+"hostname"] == "" && ann[ga+"hostname"] == "" {
				ann[alpha+"hostname"] = "walk.example.org"
			}
			return lbService("walk", ann, corev1.LoadBalancerIngress{IP: "192.0.2.10"})
		},
		"Ingress": func(ann map[string]string) runtime.Object {
			return ingress("walk", ann, []string{"walk.example.org"}, ingLB("192.0.2.10"))
		},
	}
	kinds := []string{"Service", "Ingress"}
	var silent []string
	for _, kind := range kinds {
		base := run(t, DefaultConfig(), objects[kind](map[string]string{}))
		if len(base.Endpoints) == 0 || len(base.Problems) != 0 {
			t.Fatalf("%s baseline: %v %v", kind, render(base.Endpoints), base.Problems)
		}
		for _, k := range keys {
			for _, prefix := range []string{alpha, ga} {
				full := prefix + k
				r := run(t, DefaultConfig(), objects[kind](map[string]string{full: values[k]}))
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
