package gloo

import (
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/source/sourcetest"
)

// TestProxyTargetTemplates: external-dns v0.23 applies --fqdn-target-template, and --fqdn-template with
// --target-template, to a Proxy that made no record (its Service has no load balancer address yet), or
// to every Proxy with --combine-fqdn-annotation; --fqdn-template alone publishes nothing.
func TestProxyTargetTemplates(t *testing.T) {
	objs := []*unstructured.Unstructured{
		proxy("gloo-system", "ready", []any{listener([]any{vhost([]string{"ready.example.com"}, false)})}, "target", "192.0.2.1"),
		proxy("gloo-system", "waiting", []any{listener([]any{vhost([]string{"waiting.example.com"}, false)})}),
		lbService("gloo-system", "waiting", "LoadBalancer"),
	}
	ready := "ready.example.com A 192.0.2.1 proxy/gloo-system/ready"
	for _, c := range []struct {
		name string
		cfg  source.Config
		want []string
	}{
		{"--fqdn-template alone", source.Config{FQDNTemplate: "{{.Name}}.t.example.com"}, []string{ready}},
		{"--fqdn-template and --target-template", source.Config{FQDNTemplate: "{{.Name}}.{{.Kind}}.t.example.com",
			TargetTemplate: "{{(index (index .Spec.Listeners 0).HTTPListener.VirtualHosts 0).Domains | len}}92.0.2.9,lb-{{.Namespace}}.example.net"}, []string{
			ready, "waiting.proxy.t.example.com A 192.0.2.9 proxy/gloo-system/waiting",
			"waiting.proxy.t.example.com CNAME lb-gloo-system.example.net proxy/gloo-system/waiting"}},
		{"--fqdn-target-template (JSON field names), combined", source.Config{CombineFQDNAndAnnotation: true,
			FQDNTargetTemplate: "{{.Name}}.p.example.com:{{(index (index .Spec.listeners 0).httpListener.virtualHosts 0).domains | len}}.0.2.2"}, []string{
			ready, "ready.p.example.com A 1.0.2.2 proxy/gloo-system/ready", "waiting.p.example.com A 1.0.2.2 proxy/gloo-system/waiting"}},
	} {
		got, problems := sourcetest.StaticEndpoints(t, Kind(), c.cfg, objs...)
		if ps := sourcetest.Problems(problems); strings.Contains(ps, "template") {
			t.Errorf("%s: %s", c.name, ps)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n%s\nwant\n%s", c.name, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
	}
}
