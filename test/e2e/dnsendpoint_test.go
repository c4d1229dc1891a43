package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// installCRD applies the DNSEndpoint CRD zonekeeper ships and waits until it is served.
func (e *env) installCRD(t *testing.T) dynamic.Interface {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "config", "crd", "dnsendpoints.externaldns.k8s.io.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	obj := map[string]any{}
	if err := yaml.Unmarshal(raw, &obj); err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(e.kube.Config)
	if err != nil {
		t.Fatal(err)
	}
	crds := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	if _, err := dyn.Resource(crds).Create(context.Background(), &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("the shipped CRD was not accepted: %v", err)
	}
	testbed.Eventually(t, 30*time.Second, "CRD served", func() error {
		_, err := dyn.Resource(source.DNSEndpointResource()).Namespace("default").List(context.Background(), metav1.ListOptions{})
		return err
	})
	return dyn
}

func dnsEndpointObject(name string, endpoints ...map[string]any) *unstructured.Unstructured {
	eps := make([]any, len(endpoints))
	for i, e := range endpoints {
		eps[i] = e
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "externaldns.k8s.io/v1alpha1",
		"kind":       "DNSEndpoint",
		"metadata":   map[string]any{"name": name, "namespace": "default"},
		"spec":       map[string]any{"endpoints": eps},
	}}
}

func condition(u *unstructured.Unstructured, typ string) (status, reason, message string) {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == typ {
			return fmt.Sprint(m["status"]), fmt.Sprint(m["reason"]), fmt.Sprint(m["message"])
		}
	}
	return "", "", ""
}

// DNSEndpoint objects written for external-dns are published, and their status says so:
// observedGeneration follows the spec, Ready names what is wrong, Conflict names the other owner.
func TestDNSEndpointSourceAndStatus(t *testing.T) {
	e := startEnv(t)
	dyn := e.installCRD(t)
	e.putEtcd(t, map[string]string{
		"/skydns/com/example/held/0a0b0c0d":   `{"host":"10.9.9.9","targetstrip":1}`,
		"/skydns/com/example/a-held/0e0f0a0b": `{"text":"\"heritage=external-dns,external-dns/owner=other-cluster,external-dns/resource=crd/prod/held\"","targetstrip":1}`,
	})
	res := dyn.Resource(source.DNSEndpointResource()).Namespace("default")
	ctx := context.Background()
	create := func(u *unstructured.Unstructured) {
		t.Helper()
		if _, err := res.Create(ctx, u, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	create(dnsEndpointObject("good",
		map[string]any{"dnsName": "crd.example.com", "recordType": "A", "recordTTL": int64(180), "targets": []any{"192.0.2.50", "192.0.2.51"}},
		map[string]any{"dnsName": "www.crd.example.com", "recordType": "CNAME", "targets": []any{"crd.example.com"}}))
	create(dnsEndpointObject("bad",
		map[string]any{"dnsName": "fine.example.com", "recordType": "A", "targets": []any{"192.0.2.60"}},
		map[string]any{"dnsName": "broken.example.com", "recordType": "A", "targets": []any{"not-an-address"}}))
	create(dnsEndpointObject("wants-held",
		map[string]any{"dnsName": "held.example.com", "recordType": "A", "targets": []any{"192.0.2.70"}}))

	e.start(t, "--source=crd", "--txt-owner-id=e2e", "--policy=sync")
	e.expectAnswer(t, converge, "crd.example.com", dns.TypeA, "192.0.2.50", "192.0.2.51")
	e.expectAnswer(t, converge, "www.crd.example.com", dns.TypeA, "192.0.2.50", "192.0.2.51", "cname:crd.example.com")
	e.expectAnswer(t, converge, "fine.example.com", dns.TypeA, "192.0.2.60")
	e.expectAnswer(t, time.Second, "held.example.com", dns.TypeA, "10.9.9.9")

	expectStatus := func(name string, generation int64, typ, status, reason, contains string) {
		t.Helper()
		testbed.Eventually(t, converge, fmt.Sprintf("%s %s=%s", name, typ, status), func() error {
			u, err := res.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			og, _, _ := unstructured.NestedInt64(u.Object, "status", "observedGeneration")
			s, r, m := condition(u, typ)
			if og != generation || s != status || r != reason || !strings.Contains(m, contains) {
				return fmt.Errorf("observedGeneration %d, %s %s %s %q", og, typ, s, r, m)
			}
			return nil
		})
	}
	expectStatus("good", 1, "Ready", "True", "Published", "2 record set(s) published")
	expectStatus("good", 1, "Conflict", "False", "NoConflict", "")
	expectStatus("bad", 1, "Ready", "False", "InvalidEndpoint", `spec.endpoints[1].targets[0] "not-an-address"`)
	expectStatus("wants-held", 1, "Conflict", "True", "NameConflict", `owner "other-cluster"`)
	expectStatus("wants-held", 1, "Ready", "False", "NameConflict", "held.example.com")

	// A spec change bumps the generation; the status follows and DNS too.
	u, err := res.Get(ctx, "good", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eps, _, _ := unstructured.NestedSlice(u.Object, "spec", "endpoints")
	eps[0].(map[string]any)["targets"] = []any{"192.0.2.52"}
	_ = unstructured.SetNestedSlice(u.Object, eps, "spec", "endpoints")
	if _, err := res.Update(ctx, u, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.expectAnswer(t, converge, "crd.example.com", dns.TypeA, "192.0.2.52")
	expectStatus("good", 2, "Ready", "True", "Published", "published")
}

// With views, each view's controller reports to the one status writer. A name held by another owner
// in only one view must show as a Conflict naming that view — and the status must not flip back and
// forth as the views take turns reconciling.
func TestDNSEndpointStatusWithViews(t *testing.T) {
	e := startEnv(t)
	dyn := e.installCRD(t)
	e.putEtcd(t, map[string]string{
		"/external/com/example/held/0a0b0c0d":   `{"host":"10.9.9.9","targetstrip":1}`,
		"/external/com/example/a-held/0e0f0a0b": `{"text":"\"heritage=external-dns,external-dns/owner=other-cluster,external-dns/resource=crd/prod/held\"","targetstrip":1}`,
	})
	res := dyn.Resource(source.DNSEndpointResource()).Namespace("default")
	ctx := context.Background()
	if _, err := res.Create(ctx, dnsEndpointObject("wants-held",
		map[string]any{"dnsName": "held.example.com", "recordType": "A", "targets": []any{"192.0.2.70"}}), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.start(t, "--source=crd", "--txt-owner-id=e2e", "--policy=sync", "--interval=300ms",
		"--view=internal", "--view-coredns-prefix=internal=/skydns/",
		"--view=external", "--view-coredns-prefix=external=/external/")
	e.expectAnswer(t, converge, "held.example.com", dns.TypeA, "192.0.2.70") // the internal view publishes it

	var version string
	testbed.Eventually(t, converge, "Conflict naming the external view", func() error {
		u, err := res.Get(ctx, "wants-held", metav1.GetOptions{})
		if err != nil {
			return err
		}
		s, _, m := condition(u, "Conflict")
		if s != "True" || !strings.Contains(m, "view external") || !strings.Contains(m, `owner "other-cluster"`) {
			return fmt.Errorf("Conflict %s %q", s, m)
		}
		version = u.GetResourceVersion()
		return nil
	})
	time.Sleep(3 * time.Second) // ten resyncs of each view
	u, err := res.Get(ctx, "wants-held", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if u.GetResourceVersion() != version {
		s, _, m := condition(u, "Conflict")
		t.Fatalf("the status kept changing across resyncs (now Conflict %s %q)", s, m)
	}
}
