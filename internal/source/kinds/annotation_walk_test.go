package kinds

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/source/annotationwalk"
	"github.com/zonekeeper/zonekeeper/internal/source/istio/istiotest"
	"github.com/zonekeeper/zonekeeper/internal/source/kong/kongtest"
	"github.com/zonekeeper/zonekeeper/internal/source/openshift/openshifttest"
	"github.com/zonekeeper/zonekeeper/internal/source/skipper/skippertest"
	"github.com/zonekeeper/zonekeeper/internal/source/sourcetest"
)

// walkSample is one kind's smallest manifest that publishes a name: the objects, built around the
// annotations of the one object the walk annotates (base annotations the sample needs come first and
// the walked key is added to them).
type walkSample struct {
	base    map[string]string
	objects func(annotations map[string]string) []*unstructured.Unstructured
}

// Issue 11 item 7 for the custom-resource kinds: nothing a user sets is ignored silently. Every
// annotation key, under both prefixes, is set on an object of every kind that reads manifests
// (zonekeeper plan and --source=manifest go through the same code as the cluster sources): either
// the records change, or a problem names the annotation. The Service and Ingress walk is
// internal/source's TestEveryAnnotationChangesBehaviourOrIsReported.
func TestEveryAnnotationOnEveryCustomResourceKindChangesBehaviourOrIsReported(t *testing.T) {
	values := annotationwalk.Values()
	keys := append(source.AnnotationKeys(), annotationwalk.Typo)
	samples := walkSamples()
	for _, k := range static() {
		if _, ok := samples[k.Name]; !ok {
			t.Errorf("source kind %s reads manifests but has no sample in walkSamples: add one", k.Name)
		}
	}
	var silent []string
	for _, k := range static() {
		sample, ok := samples[k.Name]
		if !ok {
			continue
		}
		run := func(ann map[string]string) ([]string, string) {
			return manifestRun(t, k, sample.objects(ann))
		}
		base, problems := run(maps.Clone(sample.base))
		if len(base) == 0 || problems != "" {
			t.Errorf("%s baseline: %v\n%s", k.Name, base, problems)
			continue
		}
		for _, key := range keys {
			for _, prefix := range []string{source.PrefixAlpha, source.PrefixGA} {
				ann := maps.Clone(sample.base)
				ann[prefix+key] = values[key]
				got, problems := run(ann)
				if strings.Contains(problems, prefix+key) || !reflect.DeepEqual(got, base) {
					continue
				}
				silent = append(silent, fmt.Sprintf("%s %s=%q", k.Name, prefix+key, values[key]))
			}
		}
	}
	sort.Strings(silent)
	if len(silent) > 0 {
		t.Errorf("annotations with no effect and no problem reported:\n  %s", strings.Join(silent, "\n  "))
	}
}

// manifestRun publishes objs through kind's manifest reader and returns the records and problems.
func manifestRun(t *testing.T, kind source.Kind, objs []*unstructured.Unstructured) ([]string, string) {
	t.Helper()
	var docs []byte
	for _, u := range objs {
		js, err := u.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		docs = append(append(docs, js...), "\n---\n"...)
	}
	path := filepath.Join(t.TempDir(), "objects.yaml")
	if err := os.WriteFile(path, docs, 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := source.NewManifestWith(path, source.DefaultConfig(), []source.Kind{kind})
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Endpoints(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return sourcetest.Describe(res.Endpoints), sourcetest.Problems(res.Problems)
}

func walkSamples() map[string]walkSample {
	obj := sourcetest.Object
	annotated := func(u *unstructured.Unstructured, ann map[string]string) *unstructured.Unstructured {
		u.SetAnnotations(ann)
		return u
	}
	accepted := map[string]any{"parents": []any{map[string]any{
		"parentRef":      map[string]any{"name": "gw", "namespace": "infra"},
		"controllerName": "example.net/gw",
		"conditions": []any{map[string]any{"type": "Accepted", "status": "True", "reason": "Accepted",
			"message": "ok", "lastTransitionTime": "2026-01-01T00:00:00Z"}},
	}}}
	gateway := func(route *unstructured.Unstructured, protocol string, hostname bool) []*unstructured.Unstructured {
		listener := map[string]any{"name": "l", "port": int64(443), "protocol": protocol,
			"allowedRoutes": map[string]any{"namespaces": map[string]any{"from": "All"}}}
		if hostname { // a route without hostnames takes the listener's
			listener["hostname"] = "walk.example.com"
		}
		return []*unstructured.Unstructured{
			obj("gateway.networking.k8s.io/v1", "Gateway", "infra", "gw", nil, map[string]any{
				"gatewayClassName": "test",
				"listeners":        []any{listener},
			}, map[string]any{"addresses": []any{map[string]any{"type": "IPAddress", "value": "192.0.2.5"}}}),
			route,
		}
	}
	route := func(apiVersion, kind, protocol string, hostnames bool) walkSample {
		s := walkSample{base: map[string]string{}}
		s.objects = func(ann map[string]string) []*unstructured.Unstructured {
			spec := map[string]any{"parentRefs": []any{map[string]any{"name": "gw", "namespace": "infra"}}}
			if hostnames {
				spec["hostnames"] = []any{"walk.example.com"}
			}
			return gateway(obj(apiVersion, kind, "default", "walk", ann, spec, accepted), protocol, !hostnames)
		}
		return s
	}
	target := map[string]string{source.PrefixAlpha + "target": "192.0.2.1"}
	return map[string]walkSample{
		"gateway-httproute": route("gateway.networking.k8s.io/v1", "HTTPRoute", "HTTPS", true),
		"gateway-grpcroute": route("gateway.networking.k8s.io/v1", "GRPCRoute", "HTTPS", true),
		"gateway-tlsroute":  route("gateway.networking.k8s.io/v1alpha2", "TLSRoute", "TLS", true),
		"gateway-tcproute":  route("gateway.networking.k8s.io/v1alpha2", "TCPRoute", "TCP", false),
		"gateway-udproute":  route("gateway.networking.k8s.io/v1alpha2", "UDPRoute", "UDP", false),
		"traefik-proxy": {base: target, objects: func(ann map[string]string) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{obj("traefik.io/v1alpha1", "IngressRoute", "default", "walk", ann,
				map[string]any{"routes": []any{map[string]any{"match": "Host(`walk.example.com`)"}}}, nil)}
		}},
		"contour-httpproxy": {base: map[string]string{}, objects: func(ann map[string]string) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{obj("projectcontour.io/v1", "HTTPProxy", "default", "walk", ann,
				map[string]any{"virtualhost": map[string]any{"fqdn": "walk.example.com"}},
				map[string]any{"loadBalancer": map[string]any{"ingress": []any{map[string]any{"hostname": "lb.example.net"}}}})}
		}},
		"openshift-route": {base: map[string]string{}, objects: func(ann map[string]string) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{annotated(openshifttest.Route("default", "walk", "walk.example.com",
				[]openshifttest.Entry{{"walk.example.com", "default", "router.example.net", "True"}}, nil), ann)}
		}},
		"istio-gateway": {base: map[string]string{}, objects: func(ann map[string]string) []*unstructured.Unstructured {
			sel := map[string]string{"istio": "ingressgateway"}
			return []*unstructured.Unstructured{
				istiotest.Service("default", "ingress", sel, nil, []string{"192.0.2.7"}),
				annotated(istiotest.Gateway("default", "walk", sel, [][]string{{"walk.example.com"}}), ann),
			}
		}},
		"istio-virtualservice": {base: map[string]string{}, objects: func(ann map[string]string) []*unstructured.Unstructured {
			sel := map[string]string{"istio": "ingressgateway"}
			return []*unstructured.Unstructured{
				istiotest.Service("default", "ingress", sel, nil, []string{"192.0.2.7"}),
				istiotest.Gateway("default", "gw", sel, [][]string{{"*"}}),
				annotated(istiotest.VirtualService("default", "walk", []string{"walk.example.com"}, []string{"default/gw"}, nil), ann),
			}
		}},
		"f5-virtualserver": {base: map[string]string{}, objects: func(ann map[string]string) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{obj("cis.f5.com/v1", "VirtualServer", "default", "walk", ann,
				map[string]any{"host": "walk.example.com", "virtualServerAddress": "192.0.2.3"},
				map[string]any{"vsAddress": "192.0.2.3", "status": "Ok"})}
		}},
		"f5-transportserver": {base: map[string]string{}, objects: func(ann map[string]string) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{obj("cis.f5.com/v1", "TransportServer", "default", "walk", ann,
				map[string]any{"host": "walk.example.com", "virtualServerAddress": "192.0.2.3", "virtualServerPort": int64(443),
					"mode": "standard", "pool": map[string]any{"service": "backend", "servicePort": int64(8443)}},
				map[string]any{"vsAddress": "192.0.2.3", "status": "Ok"})}
		}},
		"ambassador-host": {base: map[string]string{"external-dns.ambassador-service": "ambassador/edge"},
			objects: func(ann map[string]string) []*unstructured.Unstructured {
				return []*unstructured.Unstructured{
					obj("v1", "Service", "ambassador", "edge", nil,
						map[string]any{"type": "LoadBalancer", "ports": []any{map[string]any{"port": int64(443)}}},
						map[string]any{"loadBalancer": map[string]any{"ingress": []any{map[string]any{"ip": "192.0.2.1"}}}}),
					obj("getambassador.io/v3alpha1", "Host", "default", "walk", ann, map[string]any{"hostname": "walk.example.com"}, nil),
				}
			}},
		"kong-tcpingress": {base: map[string]string{}, objects: func(ann map[string]string) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{annotated(kongtest.TCPIngress("default", "walk", []string{"walk.example.com"},
				[]string{"192.0.2.10"}, nil, nil), ann)}
		}},
		"skipper-routegroup": {base: map[string]string{}, objects: func(ann map[string]string) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{annotated(skippertest.RouteGroup("zalando.org/v1", "default", "walk",
				[]string{"walk.example.com"}, []string{"192.0.2.10"}, nil, nil), ann)}
		}},
		"gloo-proxy": {base: map[string]string{}, objects: func(ann map[string]string) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{
				obj("v1", "Service", "gloo-system", "gateway-proxy", nil,
					map[string]any{"type": "LoadBalancer", "ports": []any{map[string]any{"port": int64(80)}}},
					map[string]any{"loadBalancer": map[string]any{"ingress": []any{map[string]any{"ip": "192.0.2.1"}}}}),
				obj("gateway.solo.io/v1", "VirtualService", "default", "walk", ann, map[string]any{}, nil),
				obj("gloo.solo.io/v1", "Proxy", "gloo-system", "gateway-proxy", nil, map[string]any{"listeners": []any{
					map[string]any{"httpListener": map[string]any{"virtualHosts": []any{map[string]any{
						"domains":  []any{"walk.example.com"},
						"metadata": map[string]any{"sources": []any{map[string]any{"kind": "*v1.VirtualService", "name": "walk", "namespace": "default"}}},
					}}}},
				}}, nil),
			}
		}},
	}
}
