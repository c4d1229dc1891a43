package gloo

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
)

// proxyRefs walks the Proxy in place; what it finds must cover every VirtualService and Gateway the
// decoded view leads hostMeta and targets to read (a missed one is an event that plans nothing), for
// both reference styles, HTTP and aggregate listeners, several listeners, and sources of other kinds.
func TestProxyRefsCoverWhatTheViewReads(t *testing.T) {
	aggregate := func(refs []any, vhosts map[string]any, gateways ...string) map[string]any {
		l := listener(nil, gateways...)
		delete(l, "httpListener")
		l["aggregateListener"] = map[string]any{
			"httpFilterChains": []any{map[string]any{"virtualHostRefs": refs}},
			"httpResources":    map[string]any{"virtualHosts": vhosts},
		}
		return l
	}
	other := vhost([]string{"o.example.com"}, true, "x/y")
	other["metadataStatic"].(map[string]any)["sources"].([]any)[0].(map[string]any)["resourceKind"] = "*v1.RouteTable"
	for _, tc := range []struct {
		what string
		p    []any
		// extra are keys the walk finds that the view does not read (an aggregate host no chain names).
		extra []string
	}{
		{"HTTP listener, both styles", []any{listener([]any{
			vhost([]string{"a.example.com"}, false, "team-a/web", "team-b/api"),
			vhost([]string{"b.example.com"}, true, "team-a/static"),
			other,
		}, "gloo-system/gw", "gloo-system/gw2")}, nil},
		{"two listeners", []any{
			listener([]any{vhost([]string{"a.example.com"}, false, "ns/one")}, "gloo-system/first"),
			listener([]any{vhost([]string{"b.example.com"}, true, "ns/two")}, "gloo-system/second"),
		}, nil},
		{"aggregate listener", []any{aggregate([]any{"s1", "missing"}, map[string]any{
			"s1":      vhost([]string{"s1.example.com"}, true, "ns/s1"),
			"unnamed": vhost([]string{"u.example.com"}, false, "ns/unnamed"),
		}, "gloo-system/agg")}, []string{refKey(sourceVirtualService, "ns", "unnamed")}},
	} {
		u := proxy("gloo-system", "p", tc.p)
		view := &proxyView{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, view); err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, l := range view.Spec.Listeners {
			for _, src := range l.MetadataStatic.Sources {
				if src.ResourceKind == sourceGateway {
					want = append(want, refKey(sourceGateway, src.ResourceRef.Namespace, src.ResourceRef.Name))
				}
			}
			for _, vh := range l.virtualHosts() {
				for _, src := range vh.Metadata.Sources {
					if src.Kind == sourceVirtualService {
						want = append(want, refKey(sourceVirtualService, src.Namespace, src.Name))
					}
				}
				for _, src := range vh.MetadataStatic.Sources {
					if src.ResourceKind == sourceVirtualService {
						want = append(want, refKey(sourceVirtualService, src.ResourceRef.Namespace, src.ResourceRef.Name))
					}
				}
			}
		}
		got, _ := proxyRefs(u)
		want = append(want, tc.extra...)
		slices.Sort(got)
		slices.Sort(want)
		if len(want) < 2 || !slices.Equal(got, want) {
			t.Errorf("%s: proxyRefs %q, want %q", tc.what, got, want)
		}
	}
}
