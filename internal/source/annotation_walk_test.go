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
)

// Issue 11 item 7: nothing a user sets may be ignored silently. Every annotation key zonekeeper
// accepts is set, under both prefixes, on a LoadBalancer Service and on an Ingress that already publish
// a name: either the endpoints change (names, targets, TTL, set identifier, properties), or the object
// is left to another controller, or a problem names the annotation. An unknown key under the prefix is
// a problem too.
func TestEveryAnnotationChangesBehaviourOrIsReported(t *testing.T) {
	values := annotationWalkValues()
	keys := append(append(append([]string{}, knownKeys...), awsAnnotations...), cloudflareAnnotations...)
	keys = append(keys, "zz-not-an-annotation", "ingress", "azure-tags")
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

// annotationWalkValues gives each key a value other than what the object would get without it.
func annotationWalkValues() map[string]string {
	return map[string]string{
		keyHostname: "other.example.org", keyInternalHostname: "internal.example.org", keyTarget: "192.0.2.99",
		keyTTL: "77", keyController: "another-controller", keyAccess: "private", keyEndpointsType: "HostIP",
		keyIngressHostnameSource: "annotation-only", keyGatewayHostnameSource: "annotation-only",
		keySetIdentifier: "walk", keyAlias: "true",
		"aws-evaluate-target-health": "false", "aws-failover": "PRIMARY", "aws-geolocation-continent-code": "EU",
		"aws-geolocation-country-code": "DE", "aws-geolocation-subdivision-code": "BY", "aws-geoproximity-bias": "10",
		"aws-geoproximity-coordinates": "49.22,-74.01", "aws-geoproximity-local-zone-group": "usw2-lax1",
		"aws-geoproximity-region": "us-west-2", "aws-health-check-id": "abcdef12-3456-7890-abcd-ef1234567890",
		"aws-hosted-zone-id": "Z0000000000000000001", "aws-multi-value-answer": "true", "aws-region": "us-east-1",
		"aws-target-hosted-zone": "Z0000000000000000002", "aws-weight": "10",
		"cloudflare-custom-hostname": "custom.example.net", "cloudflare-proxied": "true",
		"cloudflare-record-comment": "walk", "cloudflare-region-key": "eu", "cloudflare-tags": "team:walk",
		"record-type":          "ptr",
		"zz-not-an-annotation": "x", "ingress": "default/nginx", "azure-tags": "team=walk",
	}
}
