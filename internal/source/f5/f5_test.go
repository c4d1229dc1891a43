package f5

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/source/sourcetest"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// vs builds a VirtualServer: host ("" for none), aliases, spec.virtualServerAddress ("" for an
// ipamLabel instead, as the CRD requires one of them), status.vsAddress ("-" for no status) and
// annotations kv.
func vs(ns, name, host string, aliases []string, address, vsAddress string, kv ...string) *unstructured.Unstructured {
	spec := map[string]any{}
	if host != "" {
		spec["host"] = host
	}
	if len(aliases) > 0 {
		var a []any
		for _, s := range aliases {
			a = append(a, s)
		}
		spec["hostAliases"] = a
	}
	return withAddress("VirtualServer", ns, name, spec, address, vsAddress, kv)
}

// ts builds a TransportServer, as vs does a VirtualServer (no aliases; the pool, port and mode the CRD
// requires).
func ts(ns, name, host, address, vsAddress string, kv ...string) *unstructured.Unstructured {
	spec := map[string]any{"virtualServerPort": int64(443), "mode": "standard",
		"pool": map[string]any{"service": "backend", "servicePort": int64(8443)}}
	if host != "" {
		spec["host"] = host
	}
	return withAddress("TransportServer", ns, name, spec, address, vsAddress, kv)
}

func withAddress(kind, ns, name string, spec map[string]any, address, vsAddress string, kv []string) *unstructured.Unstructured {
	if address != "" {
		spec["virtualServerAddress"] = address
	} else {
		spec["ipamLabel"] = "prod"
	}
	var status map[string]any
	if vsAddress != "-" {
		status = map[string]any{"vsAddress": vsAddress, "status": "Ok"}
	}
	return sourcetest.Object("cis.f5.com/v1", kind, ns, name, sourcetest.Annotations(kv...), spec, status)
}

// fixture is the unit tests' cluster: addresses from the spec, the status or the target annotation;
// no address yet (no status, "None", "none"); host aliases; ttl, and annotations F5 objects do not
// read; two namespaces; a label for --label-filter; a bad spec.virtualServerAddress.
func fixture() []*unstructured.Unstructured {
	none := []string(nil)
	web := vs("default", "web", "web.example.com", none, "192.0.2.1", "192.0.2.1", "ttl", "60")
	web.SetLabels(map[string]string{"app": "web"})
	return []*unstructured.Unstructured{
		web,
		vs("default", "ipam", "ipam.example.com", none, "", "192.0.2.2"),
		vs("default", "spec-wins", "spec.example.com", none, "192.0.2.3", "10.0.0.3"),
		vs("default", "pending", "pending.example.com", none, "192.0.2.4", "-"),
		vs("default", "none", "none.example.com", none, "192.0.2.5", "None", "target", "203.0.113.5"),
		vs("default", "lower-none", "lower-none.example.com", none, "", "none"),
		vs("default", "aliases", "main.example.com", []string{"a1.example.com", "A2.Example.com"}, "2001:db8::6", "2001:db8::6"),
		vs("default", "alias-only", "", []string{"alias-only.example.com"}, "192.0.2.7", "192.0.2.7"),
		vs("default", "nohost", "", none, "192.0.2.8", "192.0.2.8"),
		vs("default", "target", "target.example.com", none, "192.0.2.9", "192.0.2.9", "target", "lb.example.net."),
		vs("default", "unread", "unread.example.com", none, "192.0.2.10", "192.0.2.10",
			"hostname", "ann.example.com", "set-identifier", "blue", "aws-weight", "20", "ttl", "soon"),
		vs("other", "ctrl", "ctrl.example.com", none, "192.0.2.11", "192.0.2.11", "controller", "someone-else"),
		vs("other", "bad", "bad.example.com", none, "192.0.2.12/24", "192.0.2.12"),
		ts("default", "tcp", "tcp.example.com", "192.0.2.21", "192.0.2.21", "ttl", "5m"),
		ts("default", "tcp-ipam", "tcp-ipam.example.com", "", "192.0.2.22"),
		ts("default", "tcp-pending", "tcp-pending.example.com", "192.0.2.23", "-"),
		ts("other", "tcp-target", "tcp-target.example.com", "192.0.2.24", "192.0.2.24", "target", "203.0.113.24,2001:db8::24"),
		ts("other", "tcp-nohost", "", "192.0.2.25", "192.0.2.25"),
	}
}

// F5 VirtualServers and TransportServers on a real API server with the CRDs of F5's own module: the
// records, the filters, --fqdn-template (which does not apply), bad input, lookups for Events.
func TestF5Servers(t *testing.T) {
	_, dyn := sourcetest.StartCluster(t, testbed.InstallF5, fixture()...)
	env := source.Env{Dynamic: dyn}

	vsAll := []string{
		"a1.example.com AAAA 2001:db8::6 f5-virtualserver/default/aliases",
		"a2.example.com AAAA 2001:db8::6 f5-virtualserver/default/aliases",
		"alias-only.example.com A 192.0.2.7 f5-virtualserver/default/alias-only",
		"ipam.example.com A 192.0.2.2 f5-virtualserver/default/ipam",
		"main.example.com AAAA 2001:db8::6 f5-virtualserver/default/aliases",
		"spec.example.com A 192.0.2.3 f5-virtualserver/default/spec-wins",
		"target.example.com CNAME lb.example.net f5-virtualserver/default/target",
		"unread.example.com A 192.0.2.10 f5-virtualserver/default/unread",
		"web.example.com A 192.0.2.1 f5-virtualserver/default/web ttl=60",
	}
	tsAll := []string{
		"tcp-ipam.example.com A 192.0.2.22 f5-transportserver/default/tcp-ipam",
		"tcp-target.example.com A 203.0.113.24 f5-transportserver/other/tcp-target",
		"tcp-target.example.com AAAA 2001:db8::24 f5-transportserver/other/tcp-target",
		"tcp.example.com A 192.0.2.21 f5-transportserver/default/tcp ttl=300",
	}
	// Not published: pending, none, lower-none (no address from F5 yet, whatever the spec or the target
	// annotation say), nohost, ctrl (the controller annotation names another controller, as external-dns
	// v0.23 reads it) and bad (its spec.virtualServerAddress is a CIDR, which the CRD's pattern lets by).
	src, got, problems := sourcetest.Endpoints(t, VirtualServerKind(), env, source.Config{})
	if !reflect.DeepEqual(got, vsAll) {
		t.Errorf("VirtualServers:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(vsAll, "\n"))
	}
	ps := sourcetest.Problems(problems)
	for _, want := range []string{
		"VirtualServer other/bad", "spec.virtualServerAddress", "192.0.2.12/24",
		"VirtualServer default/unread", sourcetest.AnnotationPrefix + "hostname", sourcetest.AnnotationPrefix + "set-identifier",
		sourcetest.AnnotationPrefix + "aws-weight", sourcetest.AnnotationPrefix + "ttl", "soon",
	} {
		if !strings.Contains(ps, want) {
			t.Errorf("no problem names %q:\n%s", want, ps)
		}
	}
	if strings.Contains(ps, "default/none") || strings.Contains(ps, "default/pending") {
		t.Errorf("an object F5 has not given an address yet is reported:\n%s", ps)
	}
	for _, k := range []string{"VirtualServer", "f5-virtualserver"} {
		obj, ok := src.(source.ObjectLookup).LookupObject(k, "other", "bad")
		if !ok || obj.GetObjectKind().GroupVersionKind() != (schema.GroupVersionKind{Group: "cis.f5.com", Version: "v1", Kind: "VirtualServer"}) {
			t.Errorf("LookupObject(%s): %v %v", k, obj, ok)
		}
	}

	src, got, _ = sourcetest.Endpoints(t, TransportServerKind(), env, source.Config{})
	if !reflect.DeepEqual(got, tsAll) {
		t.Errorf("TransportServers:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tsAll, "\n"))
	}
	if _, ok := src.(source.ObjectLookup).LookupObject("TransportServer", "default", "tcp"); !ok {
		t.Error("LookupObject(TransportServer) failed")
	}

	for _, c := range []struct {
		name string
		cfg  source.Config
		want []string
	}{
		{"--namespace", source.Config{Namespace: "other"}, []string{"tcp-target.example.com A 203.0.113.24 f5-transportserver/other/tcp-target",
			"tcp-target.example.com AAAA 2001:db8::24 f5-transportserver/other/tcp-target"}},
		{"--label-filter", source.Config{LabelFilter: "app=web"}, []string{"web.example.com A 192.0.2.1 f5-virtualserver/default/web ttl=60"}},
		{"--annotation-filter", source.Config{AnnotationFilter: sourcetest.AnnotationPrefix + "ttl"},
			[]string{"tcp.example.com A 192.0.2.21 f5-transportserver/default/tcp ttl=300", "unread.example.com A 192.0.2.10 f5-virtualserver/default/unread",
				"web.example.com A 192.0.2.1 f5-virtualserver/default/web ttl=60"}},
		// external-dns v0.23 runs the template but its names get targets only from --target-template:
		// nothing is published from it, with or without --combine-fqdn-annotation.
		{"--fqdn-template", source.Config{FQDNTemplate: "{{.Name}}.{{.Kind}}.tmpl.example.com"}, append(append([]string{}, vsAll...), tsAll...)},
		{"--combine-fqdn-annotation", source.Config{FQDNTemplate: "{{.Spec.Host}}.tmpl.example.com", CombineFQDNAndAnnotation: true,
			IgnoreHostnameAnnotation: true}, append(append([]string{}, vsAll...), tsAll...)},
	} {
		var all []string
		for _, k := range []source.Kind{VirtualServerKind(), TransportServerKind()} {
			_, got, _ := sourcetest.Endpoints(t, k, env, c.cfg)
			all = append(all, got...)
		}
		slices.Sort(all)
		if want := slices.Sorted(slices.Values(c.want)); !reflect.DeepEqual(all, want) {
			t.Errorf("%s:\n%s\nwant\n%s", c.name, strings.Join(all, "\n"), strings.Join(want, "\n"))
		}
	}

	// Issue 10 item 6: the same objects in a manifest (zonekeeper plan, --source=manifest) give the same
	// records and problems as on the cluster, kind by kind.
	sourcetest.ManifestMatchesCluster(t, env, fixture(), []source.Kind{VirtualServerKind(), TransportServerKind()},
		[]source.Config{{}, {Namespace: "other"}, {FQDNTemplate: "{{.Name}}.tmpl.example.com"}})
}
