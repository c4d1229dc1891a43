package ambassador

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"

	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/source/sourcetest"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// host builds a Host (getambassador.io/v2 unless apiVersion says otherwise) naming svc ("" for no
// Service annotation) with annotations kv.
func host(apiVersion, ns, name, hostname, svc string, kv ...string) *unstructured.Unstructured {
	a := sourcetest.Annotations(kv...)
	if svc != "" {
		a[ServiceAnnotation] = svc
	}
	spec := map[string]any{}
	if hostname != "" {
		spec["hostname"] = hostname
	}
	return sourcetest.Object(apiVersion, "Host", ns, name, a, spec, nil)
}

// service builds a LoadBalancer Service with external IPs and load balancer addresses ("ip:" or
// "hostname:" prefixed).
func service(ns, name string, externalIPs []string, lb ...string) *unstructured.Unstructured {
	var ingress []any
	for _, a := range lb {
		k, v, _ := strings.Cut(a, ":")
		ingress = append(ingress, map[string]any{k: v})
	}
	spec := map[string]any{"type": "LoadBalancer", "ports": []any{map[string]any{"port": int64(443)}}}
	if len(externalIPs) > 0 {
		ips := make([]any, len(externalIPs))
		for i, ip := range externalIPs {
			ips[i] = ip
		}
		spec["externalIPs"] = ips
	}
	var status map[string]any
	if len(ingress) > 0 {
		status = map[string]any{"loadBalancer": map[string]any{"ingress": ingress}}
	}
	return sourcetest.Object("v1", "Service", ns, name, nil, spec, status)
}

const v2, v3 = "getambassador.io/v2", "getambassador.io/v3alpha1"

// Hosts on a real API server with the CRD of Emissary's own module: the Service annotation in its
// three forms, Services' external IPs and load balancer addresses, the target annotation, metadata
// annotations, a Host written as v3alpha1, --namespace with a Service outside it, and bad input.
func TestHosts(t *testing.T) {
	api, _, dyn := sourcetest.StartClusterServer(t, testbed.InstallAmbassador,
		service("ambassador", "edge", nil, "ip:192.0.2.1", "ip:2001:db8::1"),
		service("default", "lb", nil, "hostname:lb.example.net"),
		service("team-a", "fixed", []string{"198.51.100.7"}, "ip:192.0.2.9"),
		host(v2, "default", "slash", "slash.example.com", "ambassador/edge", "ttl", "60"),
		host(v2, "default", "dotted", "dotted.example.com", "edge.ambassador"),
		host(v2, "default", "bare", "bare.example.com", "lb"),
		host(v2, "default", "target", "target.example.com", "lb", "target", "203.0.113.3"),
		host(v2, "default", "unannotated", "unannotated.example.com", ""),
		host(v2, "default", "badref", "badref.example.com", "a/b/c"),
		host(v2, "default", "missing", "missing.example.com", "ambassador/nope"),
		host(v2, "default", "nohost", "", "ambassador/edge"),
		host(v2, "team-a", "extip", "extip.example.com", "fixed.team-a"),
		host(v2, "team-a", "remote", "remote.example.com", "ambassador/edge", "set-identifier", "blue", "aws-weight", "20"),
		host(v2, "team-a", "badname", "bad_name!.example.com", "ambassador/edge"),
		host(v2, "team-a", "hostann", "hostann.example.com", "ambassador/edge", "hostname", "ignored.example.com", "ttl", "soon"),
		host(v3, "team-a", "newer", "newer.example.com", "ambassador/edge"),
	)
	env := source.Env{Kube: api.Kube(t), Dynamic: dyn}
	all := []string{
		"bare.example.com CNAME lb.example.net host/default/bare",
		"dotted.example.com A 192.0.2.1 host/default/dotted",
		"dotted.example.com AAAA 2001:db8::1 host/default/dotted",
		"extip.example.com A 198.51.100.7 host/team-a/extip",
		"hostann.example.com A 192.0.2.1 host/team-a/hostann",
		"hostann.example.com AAAA 2001:db8::1 host/team-a/hostann",
		"newer.example.com A 192.0.2.1 host/team-a/newer",
		"newer.example.com AAAA 2001:db8::1 host/team-a/newer",
		"remote.example.com A 192.0.2.1 host/team-a/remote set=blue aws/weight=20",
		"remote.example.com AAAA 2001:db8::1 host/team-a/remote set=blue aws/weight=20",
		"slash.example.com A 192.0.2.1 host/default/slash ttl=60",
		"slash.example.com AAAA 2001:db8::1 host/default/slash ttl=60",
		"target.example.com A 203.0.113.3 host/default/target",
	}
	src, got, problems := sourcetest.Endpoints(t, Kind(), env, source.Config{})
	if !reflect.DeepEqual(got, all) {
		t.Errorf("Hosts:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(all, "\n"))
	}
	ps := sourcetest.Problems(problems)
	for _, want := range []string{"default/badref", "a/b/c", "default/missing", "Service ambassador/nope not found",
		"spec.hostname", "bad_name!.example.com", sourcetest.AnnotationPrefix + "ttl", "soon"} {
		if !strings.Contains(ps, want) {
			t.Errorf("no problem names %q: %s", want, ps)
		}
	}
	if strings.Contains(ps, "unannotated") {
		t.Errorf("a Host without the Service annotation is not asking to be published: %s", ps)
	}
	for _, kind := range []string{"Host", "host"} {
		obj, ok := src.(source.ObjectLookup).LookupObject(kind, "team-a", "newer")
		if !ok || obj.GetObjectKind().GroupVersionKind() != (schema.GroupVersionKind{Group: "getambassador.io", Version: "v2", Kind: "Host"}) {
			t.Errorf("LookupObject(%s): %v %v", kind, obj, ok)
		}
	}

	if source.ReadsUnwatched(src) {
		t.Error("without --namespace every Service is in the informer's cache, yet the source says it reads unwatched ones")
	}

	// --namespace: the Hosts of team-a, with Services outside it read by GET; the source says so, so
	// that the controller lists it at every resync (a GET's Service sends no event).
	nsSrc, got, _ := sourcetest.Endpoints(t, Kind(), env, source.Config{Namespace: "team-a"})
	if !source.ReadsUnwatched(nsSrc) {
		t.Error("--namespace=team-a read Services outside it with GETs, yet the source does not say it reads unwatched ones")
	}
	var want []string
	for _, w := range all {
		if strings.Contains(w, "host/team-a/") {
			want = append(want, w)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("--namespace=team-a:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// --fqdn-template does not apply to Hosts (as in external-dns): no name for nohost, none added.
	_, got, _ = sourcetest.Endpoints(t, Kind(), env, source.Config{FQDNTemplate: "{{.Name}}.tmpl.example.com", CombineFQDNAndAnnotation: true})
	if !reflect.DeepEqual(got, all) {
		t.Errorf("--fqdn-template --combine-fqdn-annotation:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(all, "\n"))
	}

	_, got, _ = sourcetest.Endpoints(t, Kind(), env, source.Config{AnnotationFilter: sourcetest.AnnotationPrefix + "set-identifier"})
	if !reflect.DeepEqual(got, []string{all[8], all[9]}) {
		t.Errorf("--annotation-filter: %v", got)
	}
}

// A change of the Service a Host names reaches the Host's records: the source's handlers fire and the
// next pass has the new address.
func TestServiceChangeMovesTheHost(t *testing.T) {
	api, kube, dyn := sourcetest.StartClusterServer(t, testbed.InstallAmbassador,
		service("ambassador", "edge", nil, "ip:192.0.2.1"),
		host(v2, "default", "web", "web.example.com", "ambassador/edge"))
	src, got, _ := sourcetest.Endpoints(t, Kind(), source.Env{Kube: api.Kube(t), Dynamic: dyn}, source.Config{})
	if !reflect.DeepEqual(got, []string{"web.example.com A 192.0.2.1 host/default/web"}) {
		t.Fatalf("before: %v", got)
	}
	var fired atomic.Int32
	src.AddEventHandler(func() { fired.Add(1) })
	setLoadBalancerIP(t, kube, "ambassador", "edge", "192.0.2.77")
	testbed.Eventually(t, 30*time.Second, "the Host follows its Service", func() error {
		if fired.Load() == 0 {
			return errString("no event")
		}
		res, err := src.Endpoints(context.Background())
		if err != nil {
			return err
		}
		if got := sourcetest.Describe(res.Endpoints); !slices.Equal(got, []string{"web.example.com A 192.0.2.77 host/default/web"}) {
			return errString(strings.Join(got, ", "))
		}
		return nil
	})
}

type errString string

func (e errString) Error() string { return string(e) }

func setLoadBalancerIP(t *testing.T, kube kubernetes.Interface, ns, name, ip string) {
	t.Helper()
	ctx := context.Background()
	svc, err := kube.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	svc.Status.LoadBalancer.Ingress[0].IP = ip
	if _, err := kube.CoreV1().Services(ns).UpdateStatus(ctx, svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// Hosts and their Services in manifest files (zonekeeper plan, --source=manifest) give the records the
// cluster gives.
func TestHostsFromManifests(t *testing.T) {
	dir := t.TempDir()
	doc := "apiVersion: v1\nkind: Service\nmetadata: {name: edge, namespace: ambassador}\n" +
		"spec: {type: LoadBalancer, ports: [{port: 443}]}\nstatus: {loadBalancer: {ingress: [{ip: 192.0.2.1}]}}\n---\n" +
		"apiVersion: getambassador.io/v3alpha1\nkind: Host\nmetadata:\n  name: web\n  namespace: apps\n" +
		"  annotations: {external-dns.ambassador-service: ambassador/edge, external-dns.alpha.kubernetes.io/ttl: \"30\"}\n" +
		"spec: {hostname: web.example.com}\n---\n" +
		"apiVersion: getambassador.io/v2\nkind: Host\nmetadata:\n  name: gone\n" +
		"  annotations: {external-dns.ambassador-service: ambassador/missing}\nspec: {hostname: gone.example.com}\n"
	if err := os.WriteFile(filepath.Join(dir, "objects.yaml"), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := source.NewManifestWith(dir, source.Config{}, []source.Kind{Kind()})
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Endpoints(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := sourcetest.Describe(res.Endpoints); !reflect.DeepEqual(got, []string{"web.example.com A 192.0.2.1 host/apps/web ttl=30"}) {
		t.Errorf("from manifests: %v", got)
	}
	if ps := sourcetest.Problems(res.Problems); !strings.Contains(ps, "Service ambassador/missing not found") {
		t.Errorf("problems: %s", ps)
	}
}
