package traefik

import (
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/source/sourcetest"
)

// TestTraefikTargetTemplates: external-dns v0.23 applies --fqdn-target-template, and --fqdn-template
// with --target-template, to routes that made no record (no host or no target annotation), or to every
// route with --combine-fqdn-annotation. Without --target-template zonekeeper's template names keep
// pointing at the target annotation (external-dns publishes none).
func TestTraefikTargetTemplates(t *testing.T) {
	objs := []*unstructured.Unstructured{
		route(Group, "IngressRoute", "default", "web", []string{"Host(`web.example.com`)"}, "target", "192.0.2.1"),
		route(Group, "IngressRoute", "default", "notarget", []string{"Host(`nt.example.com`)"}),
		route(Group, "IngressRouteTCP", "default", "nohost", []string{"HostSNI(`*`)"}, "target", "192.0.2.8", "ttl", "90"),
	}
	web := "web.example.com A 192.0.2.1 ingressroute/default/web"
	for _, c := range []struct {
		name string
		cfg  source.Config
		want []string
	}{
		{"--fqdn-template alone", source.Config{FQDNTemplate: "{{.Name}}.t.example.com"}, []string{
			"nohost.t.example.com A 192.0.2.8 ingressroutetcp/default/nohost ttl=90", web}},
		{"--fqdn-template and --target-template (repeated)", source.Config{FQDNTemplate: "{{.Name}}.{{.Kind}}.t.example.com",
			TargetTemplate: "192.0.2.50,{{index .Labels \"missing\"}}lb.example.net"}, []string{
			"nohost.ingressroutetcp.t.example.com A 192.0.2.50 ingressroutetcp/default/nohost ttl=90",
			"nohost.ingressroutetcp.t.example.com CNAME lb.example.net ingressroutetcp/default/nohost ttl=90",
			"notarget.ingressroute.t.example.com A 192.0.2.50 ingressroute/default/notarget",
			"notarget.ingressroute.t.example.com CNAME lb.example.net ingressroute/default/notarget", web}},
		{"--fqdn-target-template, combined", source.Config{FQDNTargetTemplate: "{{.Name}}.p.example.com:2001:db8::{{len .Name}}",
			CombineFQDNAndAnnotation: true}, []string{
			"nohost.p.example.com AAAA 2001:db8::6 ingressroutetcp/default/nohost ttl=90",
			"notarget.p.example.com AAAA 2001:db8::8 ingressroute/default/notarget",
			web, "web.p.example.com AAAA 2001:db8::3 ingressroute/default/web"}},
	} {
		var got []string
		eps, problems := sourcetest.StaticEndpoints(t, Kind(), c.cfg, objs...)
		if ps := sourcetest.Problems(problems); strings.Contains(ps, "template") {
			t.Errorf("%s: %s", c.name, ps)
		}
		got = append(got, eps...)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n%s\nwant\n%s", c.name, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
	}
}
