package kong

import (
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/source/kong/kongtest"
	"github.com/zonekeeper/zonekeeper/internal/source/sourcetest"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// tcpIngress is kongtest.TCPIngress without labels.
func tcpIngress(ns, name string, hosts, ips, lbNames []string, kv ...string) *unstructured.Unstructured {
	return kongtest.TCPIngress(ns, name, hosts, ips, lbNames, nil, kv...)
}

func list(s ...string) []string { return s }

// TCPIngresses on a real API server with the CRD of Kong's own module: rule hosts and the hostname
// annotation, the status load balancer or the target annotation, filters, --fqdn-template (ignored) and
// bad input.
func TestTCPIngresses(t *testing.T) {
	labelled := kongtest.TCPIngress("other", "labelled", list("lab.example.com"), list("192.0.2.9"), nil, map[string]string{"app": "db"})
	_, dyn := sourcetest.StartCluster(t, testbed.InstallKong,
		tcpIngress("default", "web", list("web.example.com", "", "web2.example.com"), list("192.0.2.1", "2001:db8::1"), nil, "ttl", "60"),
		tcpIngress("default", "lbhost", list("lbhost.example.com"), nil, list("lb.example.net"), "hostname", "alias.example.com"),
		tcpIngress("default", "target", list("target.example.com"), list("192.0.2.3"), nil, "target", "203.0.113.3"),
		tcpIngress("default", "nostatus", list("nostatus.example.com"), nil, nil),
		tcpIngress("default", "portonly", list(""), list("192.0.2.5"), nil),
		tcpIngress("default", "bad", list("*.wild.example.com", "bad_name!.example.com"), list("192.0.2.6"), nil, "hostname", "ok.example.com", "ttl", "soon"),
		tcpIngress("other", "ctrl", list("ctrl.example.com"), list("192.0.2.7"), nil, "controller", "someone-else"),
		tcpIngress("other", "weighted", list("w.example.com"), list("192.0.2.8"), nil, "set-identifier", "blue", "aws-weight", "20"),
		labelled,
	)
	env := source.Env{Dynamic: dyn}
	all := []string{
		"*.wild.example.com A 192.0.2.6 tcpingress/default/bad",
		"alias.example.com CNAME lb.example.net tcpingress/default/lbhost",
		"lab.example.com A 192.0.2.9 tcpingress/other/labelled",
		"lbhost.example.com CNAME lb.example.net tcpingress/default/lbhost",
		"ok.example.com A 192.0.2.6 tcpingress/default/bad",
		"target.example.com A 203.0.113.3 tcpingress/default/target",
		"w.example.com A 192.0.2.8 tcpingress/other/weighted set=blue aws/weight=20",
		"web.example.com A 192.0.2.1 tcpingress/default/web ttl=60",
		"web.example.com AAAA 2001:db8::1 tcpingress/default/web ttl=60",
		"web2.example.com A 192.0.2.1 tcpingress/default/web ttl=60",
		"web2.example.com AAAA 2001:db8::1 tcpingress/default/web ttl=60",
	}
	src, got, problems := run(t, env, source.Config{})
	if !reflect.DeepEqual(got, all) {
		t.Errorf("TCPIngresses:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(all, "\n"))
	}
	ps := sourcetest.Problems(problems)
	for _, want := range []string{"spec.rules[1].host", "bad_name!.example.com", sourcetest.AnnotationPrefix + "ttl", "soon", "TCPIngress default/bad"} {
		if !strings.Contains(ps, want) {
			t.Errorf("no problem names %q: %s", want, ps)
		}
	}
	for _, kind := range []string{"TCPIngress", "tcpingress"} {
		obj, ok := src.LookupObject(kind, "default", "bad")
		if !ok || obj.GetObjectKind().GroupVersionKind() != (schema.GroupVersionKind{Group: "configuration.konghq.com", Version: "v1beta1", Kind: "TCPIngress"}) {
			t.Errorf("LookupObject(%s): %v %v", kind, obj, ok)
		}
	}
	// External-dns's kong-tcpingress source ignores --fqdn-template: the port-only TCPIngress stays
	// nameless, and --ignore-hostname-annotation (which needs the flag) only drops the annotation's names.
	_, got, _ = run(t, env, source.Config{Namespace: "default", FQDNTemplate: "{{.Name}}.tmpl.example.com", CombineFQDNAndAnnotation: true, IgnoreHostnameAnnotation: true})
	want := []string{
		"*.wild.example.com A 192.0.2.6 tcpingress/default/bad",
		"lbhost.example.com CNAME lb.example.net tcpingress/default/lbhost",
		"target.example.com A 203.0.113.3 tcpingress/default/target",
		"web.example.com A 192.0.2.1 tcpingress/default/web ttl=60",
		"web.example.com AAAA 2001:db8::1 tcpingress/default/web ttl=60",
		"web2.example.com A 192.0.2.1 tcpingress/default/web ttl=60",
		"web2.example.com AAAA 2001:db8::1 tcpingress/default/web ttl=60",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("--fqdn-template --combine-fqdn-annotation --ignore-hostname-annotation --namespace=default:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	_, got, _ = run(t, env, source.Config{AnnotationFilter: sourcetest.AnnotationPrefix + "set-identifier"})
	if !reflect.DeepEqual(got, []string{"w.example.com A 192.0.2.8 tcpingress/other/weighted set=blue aws/weight=20"}) {
		t.Errorf("--annotation-filter: %v", got)
	}
	_, got, _ = run(t, env, source.Config{LabelFilter: "app=db"})
	if !reflect.DeepEqual(got, []string{"lab.example.com A 192.0.2.9 tcpingress/other/labelled"}) {
		t.Errorf("--label-filter: %v", got)
	}
}

// TCPIngresses in manifest files (zonekeeper plan, --source=manifest) give the records the cluster
// source gives; --namespace leaves the others out.
func TestTCPIngressesFromManifests(t *testing.T) {
	doc := "apiVersion: configuration.konghq.com/v1beta1\nkind: TCPIngress\nmetadata:\n  name: db\n  namespace: apps\n" +
		"  annotations: {external-dns.alpha.kubernetes.io/ttl: \"30\"}\n" +
		"spec: {rules: [{host: db.example.com, port: 5432, backend: {serviceName: db, servicePort: 5432}}]}\n" +
		"status: {loadBalancer: {ingress: [{ip: 192.0.2.10}]}}\n---\n" +
		"apiVersion: configuration.konghq.com/v1beta1\nkind: TCPIngress\nmetadata: {name: mq}\n" +
		"spec: {rules: [{host: mq.example.com, port: 5672, backend: {serviceName: mq, servicePort: 5672}}]}\n" +
		"status: {loadBalancer: {ingress: [{hostname: lb.example.net}]}}\n"
	for _, c := range []struct {
		cfg  source.Config
		want []string
	}{
		{source.Config{}, []string{"db.example.com A 192.0.2.10 tcpingress/apps/db ttl=30", "mq.example.com CNAME lb.example.net tcpingress/default/mq"}},
		{source.Config{Namespace: "apps"}, []string{"db.example.com A 192.0.2.10 tcpingress/apps/db ttl=30"}},
	} {
		got, problems := sourcetest.ManifestEndpoints(t, doc, Kind(), c.cfg)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%+v: %v, want %v (problems: %s)", c.cfg, got, c.want, sourcetest.Problems(problems))
		}
	}
}

func run(t *testing.T, env source.Env, cfg source.Config) (*source.CRDSource, []string, []endpoint.Problem) {
	t.Helper()
	src, got, problems := sourcetest.Endpoints(t, Kind(), env, cfg)
	return src.(*source.CRDSource), got, problems
}
