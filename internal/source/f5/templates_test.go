package f5

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/source/sourcetest"
)

// TestF5TargetTemplates: external-dns v0.23 applies --fqdn-target-template, and --fqdn-template with
// --target-template, to F5 servers that made no record (no address from F5 yet; one with an address
// and no host has a record with an empty name there), or to every one with --combine-fqdn-annotation; --fqdn-template alone publishes nothing (no targets). Repeated
// templates arrive joined with a comma. JSON field names work too (v0.23's retry).
func TestF5TargetTemplates(t *testing.T) {
	none := []string(nil)
	objs := func() []*unstructured.Unstructured {
		return []*unstructured.Unstructured{
			vs("default", "web", "web.example.com", none, "192.0.2.1", "192.0.2.1", "ttl", "60"),
			vs("default", "pending", "pending.example.com", none, "192.0.2.4", "-"),
			vs("default", "nohost", "", none, "192.0.2.8", "192.0.2.8"),
			ts("default", "tcp", "tcp.example.com", "192.0.2.21", "192.0.2.21"),
		}
	}
	web := "web.example.com A 192.0.2.1 f5-virtualserver/default/web ttl=60"
	tcp := "tcp.example.com A 192.0.2.21 f5-transportserver/default/tcp"
	for _, c := range []struct {
		name string
		cfg  source.Config
		want []string
	}{
		{"--fqdn-template alone", source.Config{FQDNTemplate: "{{.Name}}.t.example.com"}, []string{tcp, web}},
		{"--fqdn-template and --target-template", source.Config{FQDNTemplate: "{{.Name}}.{{.Kind}}.t.example.com",
			TargetTemplate: "{{.Spec.VirtualServerAddress}},lb.example.net"}, []string{
			"pending.virtualserver.t.example.com A 192.0.2.4 f5-virtualserver/default/pending",
			"pending.virtualserver.t.example.com CNAME lb.example.net f5-virtualserver/default/pending",
			tcp, web}},
		{"--fqdn-target-template (JSON field names), combined", source.Config{CombineFQDNAndAnnotation: true,
			FQDNTargetTemplate: "{{.Name}}.p.example.com:{{.Spec.virtualServerAddress}}"}, []string{
			"nohost.p.example.com A 192.0.2.8 f5-virtualserver/default/nohost",
			"pending.p.example.com A 192.0.2.4 f5-virtualserver/default/pending",
			"tcp.p.example.com A 192.0.2.21 f5-transportserver/default/tcp",
			"web.p.example.com A 192.0.2.1 f5-virtualserver/default/web ttl=60",
			tcp, web}},
		{"pairs first, then names (not run: the pairs made records)", source.Config{FQDNTargetTemplate: "{{.Name}}.p.example.com:192.0.2.99",
			FQDNTemplate: "{{.Name}}.t.example.com", TargetTemplate: "192.0.2.98"}, []string{
			"pending.p.example.com A 192.0.2.99 f5-virtualserver/default/pending",
			tcp, web}},
	} {
		var got []string
		for _, k := range []source.Kind{VirtualServerKind(), TransportServerKind()} {
			eps, problems := sourcetest.StaticEndpoints(t, k, c.cfg, objs()...)
			if ps := sourcetest.Problems(problems); strings.Contains(ps, "template") {
				t.Errorf("%s: %s", c.name, ps)
			}
			got = append(got, eps...)
		}
		slices.Sort(got)
		if want := slices.Sorted(slices.Values(c.want)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n%s\nwant\n%s", c.name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}
