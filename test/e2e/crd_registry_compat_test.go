package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/zonekeeper/zonekeeper/internal/app"
	"github.com/zonekeeper/zonekeeper/internal/registry/crd"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// The CRD registry (--registry=crd, external-dns v0.22+), differentially against the real external-dns
// v0.23.0 on PowerDNS (whose records carry no provider labels, so the DNSRecords can be compared
// whole). The cluster has external-dns's own DNSRecord CRD, from its v0.23.0 module.
//
//   - Both tools, each with its own PowerDNS and DNSRecord namespace, given the same objects and the
//     same command line, write the same records and the same DNSRecords: same names, same owner label,
//     same spec, field for field; all Ready=True/Programmed.
//   - A second run of either writes nothing.
//   - Each adopts the other's zone and DNSRecords with zero changes (same owner id), and keeps managing
//     them: after an object moves, the other tool's update is what the first one would have done.
//   - DNSRecords of another owner, and one that does not hold the record its name says, are never
//     touched, and the latter is named in the log without blocking the rest.
func TestCRDRegistryMatchesExternalDNS(t *testing.T) {
	peers := crdRegistryPeers(t)
	kube := testbed.StartKubeAPIServer(t)
	testbed.InstallExternalDNSDNSRecordCRD(t, kube)
	e := &env{kube: kube, client: kube.Client(t)}
	dyn, err := dynamic.NewForConfig(kube.Config)
	if err != nil {
		t.Fatal(err)
	}
	e.publishTestObjects(t)

	for _, peer := range peers {
		t.Run(peer.Version, func(t *testing.T) {
			edNS, zkNS := e.registryNamespace(t), e.registryNamespace(t)
			edDNS, zkDNS := testbed.StartPowerDNS(t, "example.com"), testbed.StartPowerDNS(t, "example.com")
			edFlags, zkFlags := crdRegistryFlags(e, edDNS, edNS), crdRegistryFlags(e, zkDNS, zkNS)

			runExternalDNSWith(t, peer, edFlags...)
			if code, out, errOut := e.run(t, append([]string{"--once"}, zkFlags...)...); code != app.ExitOK {
				t.Fatalf("zonekeeper --once: exit %d\n%s\n%s", code, out, tail(errOut, 4000))
			}

			t.Run("same records", func(t *testing.T) {
				// The SOA serial counts each tool's API writes, which it batches its own way.
				ed, zk := zoneRRsets(t, edDNS), zoneRRsets(t, zkDNS)
				delete(ed, "example.com. SOA")
				delete(zk, "example.com. SOA")
				if !reflect.DeepEqual(ed, zk) {
					t.Fatalf("the zones differ:\nexternal-dns: %v\nzonekeeper:   %v", ed, zk)
				}
				if ed["dev1.example.com. A"] == "" || ed["www.example.com. CNAME"] == "" {
					t.Fatalf("the test objects are not published: %v", ed)
				}
				for name := range ed {
					if strings.Contains(name, " TXT") {
						t.Errorf("an ownership TXT was written with --registry=crd: %s", name)
					}
				}
			})
			t.Run("same DNSRecords", func(t *testing.T) {
				ed, zk := dnsRecords(t, dyn, edNS), dnsRecords(t, dyn, zkNS)
				if len(ed) != 4 {
					t.Fatalf("external-dns wrote %d DNSRecords, want 4: %v", len(ed), keys(ed))
				}
				if !reflect.DeepEqual(keys(ed), keys(zk)) {
					t.Fatalf("object names differ:\nexternal-dns: %v\nzonekeeper:   %v", keys(ed), keys(zk))
				}
				for _, name := range keys(ed) {
					a, b := ed[name], zk[name]
					t.Logf("external-dns's DNSRecord %s: labels %s spec %s", name, asJSON(a.GetLabels()), asJSON(a.Object["spec"]))
					for _, field := range [][]string{{"metadata", "labels"}, {"metadata", "annotations"}, {"spec"}} {
						va, _, _ := unstructured.NestedFieldNoCopy(a.Object, field...)
						vb, _, _ := unstructured.NestedFieldNoCopy(b.Object, field...)
						if !reflect.DeepEqual(va, vb) {
							t.Errorf("DNSRecord %s %s:\nexternal-dns: %s\nzonekeeper:   %s", name, strings.Join(field, "."), asJSON(va), asJSON(vb))
						}
					}
					for who, o := range map[string]*unstructured.Unstructured{"external-dns": a, "zonekeeper": b} {
						if s, reason := readyOf(o); s != "True" || reason != crd.ProgrammedReason {
							t.Errorf("%s's DNSRecord %s: Ready %s/%s, want True/Programmed", who, name, s, reason)
						}
					}
				}
			})
			t.Run("second run writes nothing", func(t *testing.T) {
				edZone, zkZone := zoneRRsets(t, edDNS), zoneRRsets(t, zkDNS)
				edVersions, zkVersions := versions(t, dyn, edNS), versions(t, dyn, zkNS)
				if log := runExternalDNSWith(t, peer, edFlags...); !strings.Contains(log, "All records are already up to date") {
					t.Fatalf("external-dns's second run:\n%s", tail(log, 4000))
				}
				e.expectPlan(t, app.ExitOK, "No changes", zkFlags...)
				if code, out, errOut := e.run(t, append([]string{"--once"}, zkFlags...)...); code != app.ExitOK {
					t.Fatalf("zonekeeper --once: exit %d\n%s\n%s", code, out, tail(errOut, 4000))
				}
				expectUnchanged(t, "external-dns's second run", edZone, zoneRRsets(t, edDNS), edVersions, versions(t, dyn, edNS))
				expectUnchanged(t, "zonekeeper's second run", zkZone, zoneRRsets(t, zkDNS), zkVersions, versions(t, dyn, zkNS))
			})
			t.Run("each adopts the other's", func(t *testing.T) {
				edZone, zkZone := zoneRRsets(t, edDNS), zoneRRsets(t, zkDNS)
				edVersions, zkVersions := versions(t, dyn, edNS), versions(t, dyn, zkNS)
				// zonekeeper over external-dns's zone and DNSRecords.
				e.expectPlan(t, app.ExitOK, "No changes", edFlags...)
				if code, out, errOut := e.run(t, append([]string{"--once"}, edFlags...)...); code != app.ExitOK {
					t.Fatalf("zonekeeper --once over external-dns's: exit %d\n%s\n%s", code, out, tail(errOut, 4000))
				}
				// external-dns over zonekeeper's.
				if log := runExternalDNSWith(t, peer, zkFlags...); !strings.Contains(log, "All records are already up to date") {
					t.Fatalf("external-dns wants to change zonekeeper's records:\n%s", tail(log, 4000))
				}
				expectUnchanged(t, "zonekeeper over external-dns's", edZone, zoneRRsets(t, edDNS), edVersions, versions(t, dyn, edNS))
				expectUnchanged(t, "external-dns over zonekeeper's", zkZone, zoneRRsets(t, zkDNS), zkVersions, versions(t, dyn, zkNS))
			})
			t.Run("each keeps managing the other's", func(t *testing.T) {
				ing, err := e.client.NetworkingV1().Ingresses("default").Get(context.Background(), "nginx-test-ingress", metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				e.setIngressIP(t, ing, "192.168.10.99")
				defer func() {
					ing, _ := e.client.NetworkingV1().Ingresses("default").Get(context.Background(), "nginx-test-ingress", metav1.GetOptions{})
					e.setIngressIP(t, ing, "192.168.10.51")
				}()
				// Each updates the other's record and DNSRecord; then the other finds nothing to do.
				if code, out, errOut := e.run(t, append([]string{"--once"}, edFlags...)...); code != app.ExitOK {
					t.Fatalf("zonekeeper --once over external-dns's: exit %d\n%s\n%s", code, out, tail(errOut, 4000))
				}
				runExternalDNSWith(t, peer, zkFlags...)
				for _, z := range []*testbed.PowerDNS{edDNS, zkDNS} {
					if got := zoneRRsets(t, z)["dev1.example.com. A"]; !strings.Contains(got, "192.168.10.99") {
						t.Fatalf("dev1.example.com A = %s after the move", got)
					}
				}
				if log := runExternalDNSWith(t, peer, edFlags...); !strings.Contains(log, "All records are already up to date") {
					t.Fatalf("external-dns after zonekeeper updated its record:\n%s", tail(log, 4000))
				}
				e.expectPlan(t, app.ExitOK, "No changes", zkFlags...)
				ed, zk := dnsRecords(t, dyn, edNS), dnsRecords(t, dyn, zkNS)
				for name, a := range ed {
					if !reflect.DeepEqual(a.Object["spec"], zk[name].Object["spec"]) {
						t.Errorf("after the cross updates, DNSRecord %s:\nzonekeeper wrote:   %s\nexternal-dns wrote: %s", name, asJSON(a.Object["spec"]), asJSON(zk[name].Object["spec"]))
					}
				}
			})
			t.Run("other owners and unreadable objects", func(t *testing.T) {
				// foreign.example.com is in the zone, claimed by owner "other"; a Service asks for it.
				// hand-written is a DNSRecord whose name is not its record's.
				seedPowerDNS(t, zkDNS, "foreign.example.com.", "A", "198.51.100.1")
				foreign := map[string]any{"dnsName": "foreign.example.com", "recordType": "A", "targets": []any{"198.51.100.1"},
					"labels": map[string]any{"owner": "other", "resource": "service/else/where"}}
				createDNSRecord(t, dyn, zkNS, foreignName(t), "other", foreign)
				createDNSRecord(t, dyn, zkNS, "hand-written", "shared", map[string]any{"dnsName": "web.example.com", "recordType": "A", "targets": []any{"192.0.2.1"}})
				e.createService(t, loadBalancer("foreign", "default", map[string]string{"external-dns.alpha.kubernetes.io/hostname": "foreign.example.com"}), "203.0.113.99")
				defer func() {
					_ = e.client.CoreV1().Services("default").Delete(context.Background(), "foreign", metav1.DeleteOptions{})
				}()
				before := dnsRecords(t, dyn, zkNS)
				code, out, errOut := e.run(t, append([]string{"--once"}, zkFlags...)...)
				if code != app.ExitOK {
					t.Fatalf("zonekeeper --once: exit %d\n%s\n%s", code, out, tail(errOut, 4000))
				}
				if !strings.Contains(errOut, "DNSRecord "+zkNS+"/hand-written: spec.endpoint is web.example.com A") {
					t.Errorf("the unreadable DNSRecord is not named in the log:\n%s", tail(errOut, 4000))
				}
				if got := zoneRRsets(t, zkDNS)["foreign.example.com. A"]; !strings.Contains(got, "198.51.100.1") || strings.Contains(got, "203.0.113.99") {
					t.Errorf("another owner's record was changed: %s", got)
				}
				after := dnsRecords(t, dyn, zkNS)
				for _, name := range []string{foreignName(t), "hand-written"} {
					if after[name].GetResourceVersion() != before[name].GetResourceVersion() {
						t.Errorf("DNSRecord %s was written", name)
					}
				}
				if got := zoneRRsets(t, zkDNS)["web.example.com. A"]; !strings.Contains(got, "203.0.113.10") {
					t.Errorf("the unreadable object blocked web.example.com: %s", got)
				}
			})
		})
	}
}

// crdRegistryPeers are the external-dns versions with the CRD registry (v0.22+).
func crdRegistryPeers(t *testing.T) []testbed.ExternalDNSPeer {
	var out []testbed.ExternalDNSPeer
	for _, p := range testbed.ExternalDNSPeers(t) {
		if p.Version != "v0.21.0" {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		t.Skip("no external-dns peer with --registry=crd (v0.22+) is built")
	}
	return out
}

func crdRegistryFlags(e *env, pd *testbed.PowerDNS, namespace string) []string {
	return []string{"--source=ingress", "--source=service", "--registry=crd", "--crd-registry-namespace=" + namespace,
		"--txt-owner-id=shared", "--policy=sync", "--domain-filter=example.com", "--kubeconfig=" + e.kube.Kubeconfig,
		"--provider=pdns", "--pdns-server=" + pd.APIURL, "--pdns-api-key=" + pd.APIKey}
}

// registryNamespace creates a fresh namespace for one tool's DNSRecords.
func (e *env) registryNamespace(t *testing.T) string {
	t.Helper()
	ns, err := e.client.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "registry-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ns.Name
}

func dnsRecords(t *testing.T, dyn dynamic.Interface, ns string) map[string]*unstructured.Unstructured {
	t.Helper()
	l, err := dyn.Resource(crd.Resource).Namespace(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*unstructured.Unstructured{}
	for i := range l.Items {
		out[l.Items[i].GetName()] = &l.Items[i]
	}
	return out
}

func versions(t *testing.T, dyn dynamic.Interface, ns string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for name, o := range dnsRecords(t, dyn, ns) {
		out[name] = o.GetResourceVersion()
	}
	return out
}

func expectUnchanged(t *testing.T, what string, zoneBefore, zoneAfter, versionsBefore, versionsAfter map[string]string) {
	t.Helper()
	if !reflect.DeepEqual(zoneBefore, zoneAfter) {
		t.Errorf("%s changed the zone:\nbefore: %v\nafter:  %v", what, zoneBefore, zoneAfter)
	}
	if !reflect.DeepEqual(versionsBefore, versionsAfter) {
		t.Errorf("%s wrote DNSRecords (resource versions %v → %v)", what, versionsBefore, versionsAfter)
	}
}

func keys(m map[string]*unstructured.Unstructured) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func readyOf(o *unstructured.Unstructured) (status, reason string) {
	conds, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
	for _, c := range conds {
		if m, _ := c.(map[string]any); m["type"] == crd.ReadyCondition {
			return fmt.Sprint(m["status"]), fmt.Sprint(m["reason"])
		}
	}
	return "", ""
}

func asJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// foreignName is the name external-dns gives the DNSRecord of foreign.example.com A (the hash is
// sha256sum of "foreign.example.com/A/"), so that the object claims that record.
func foreignName(t *testing.T) string {
	t.Helper()
	return "foreign-example-com-f8b40ddf"
}

func createDNSRecord(t *testing.T, dyn dynamic.Interface, ns, name, owner string, ep map[string]any) {
	t.Helper()
	o := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "externaldns.k8s.io/v1alpha1", "kind": "DNSRecord",
		"metadata": map[string]any{"name": name, "namespace": ns, "labels": map[string]any{crd.OwnerLabel: owner}},
		"spec":     map[string]any{"endpoint": ep},
	}}
	created, err := dyn.Resource(crd.Resource).Namespace(ns).Create(context.Background(), o, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created.Object["status"] = map[string]any{"conditions": []any{map[string]any{
		"type": "Ready", "status": "True", "reason": "Programmed", "message": "seeded", "lastTransitionTime": "2026-01-01T00:00:00Z"}}}
	if _, err := dyn.Resource(crd.Resource).Namespace(ns).UpdateStatus(context.Background(), created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}
