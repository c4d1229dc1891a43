package crd

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/provider/inmemory"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// cluster is a real kube-apiserver with the project's DNSRecord CRD (config/crd) and a namespace.
type cluster struct {
	dyn dynamic.Interface
	ns  string
}

func startCluster(t *testing.T) *cluster {
	t.Helper()
	k := testbed.StartKubeAPIServer(t)
	testbed.InstallCRDFile(t, k, filepath.Join("..", "..", "..", "config", "crd", "dnsrecords.externaldns.k8s.io.yaml"))
	dyn, err := dynamic.NewForConfig(k.Config)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Client(t).CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "dns"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return &cluster{dyn: dyn, ns: "dns"}
}

func (c *cluster) registry(t *testing.T, p provider.Provider, owner string, log *slog.Logger) *Registry {
	t.Helper()
	r, err := New(p, Config{Client: c.dyn, Namespace: c.ns, OwnerID: owner, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (c *cluster) get(t *testing.T, key endpoint.Key) *dnsRecord {
	t.Helper()
	u, err := c.dyn.Resource(Resource).Namespace(c.ns).Get(context.Background(), objectName(key), metav1.GetOptions{})
	if err != nil {
		t.Fatalf("DNSRecord of %v: %v", key, err)
	}
	r, err := fromUnstructured(u)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (c *cluster) names(t *testing.T) []string {
	t.Helper()
	l, err := c.dyn.Resource(Resource).Namespace(c.ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, i := range l.Items {
		out = append(out, i.GetName())
	}
	return out
}

func ready(r *dnsRecord) (metav1.ConditionStatus, string) {
	c := meta.FindStatusCondition(r.Status.Conditions, ReadyCondition)
	if c == nil {
		return "", ""
	}
	return c.Status, c.Reason
}

func labelled(name, resource, target string) *endpoint.Endpoint {
	return endpoint.New(name, endpoint.RecordTypeA, target).WithLabel(endpoint.ResourceLabelKey, resource)
}

func find(eps []*endpoint.Endpoint, name string) *endpoint.Endpoint {
	for _, e := range eps {
		if e.DNSName == name {
			return e
		}
	}
	return nil
}

// The registry's life cycle against the real apiserver: a create writes the DNSRecord (owner label,
// spec.endpoint with owner and resource, Ready=True/Programmed) and the record; Records reads the
// ownership back; an update rewrites spec; a delete removes the object.
func TestRegistryKeepsOwnershipInDNSRecords(t *testing.T) {
	c := startCluster(t)
	ctx := context.Background()
	p := inmemory.New("example.com")
	r := c.registry(t, p, "cluster-a", nil)

	web := labelled("web.example.com", "service/default/web", "192.0.2.1")
	if err := r.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{web}}); err != nil {
		t.Fatal(err)
	}
	obj := c.get(t, web.Key())
	if obj.Labels[OwnerLabel] != "cluster-a" || obj.Spec.Endpoint.Labels[endpoint.OwnerLabelKey] != "cluster-a" ||
		obj.Spec.Endpoint.Labels[endpoint.ResourceLabelKey] != "service/default/web" || obj.Spec.Endpoint.Targets[0] != "192.0.2.1" {
		t.Fatalf("DNSRecord %s: labels %v, spec %+v", obj.Name, obj.Labels, obj.Spec.Endpoint)
	}
	if s, reason := ready(obj); s != metav1.ConditionTrue || reason != ProgrammedReason {
		t.Fatalf("Ready = %s/%s, want True/Programmed", s, reason)
	}

	eps, err := r.Records(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := find(eps, "web.example.com")
	if got == nil || got.Owner() != "cluster-a" || got.Resource() != "service/default/web" {
		t.Fatalf("Records: %v", eps)
	}

	next := got.DeepCopy()
	next.Targets = endpoint.Targets{"192.0.2.2"}
	if err := r.ApplyChanges(ctx, &plan.Changes{UpdateOld: []*endpoint.Endpoint{got}, UpdateNew: []*endpoint.Endpoint{next}}); err != nil {
		t.Fatal(err)
	}
	if obj := c.get(t, web.Key()); obj.Spec.Endpoint.Targets[0] != "192.0.2.2" {
		t.Fatalf("after the update, spec %+v", obj.Spec.Endpoint)
	}
	if err := r.ApplyChanges(ctx, &plan.Changes{Delete: []*endpoint.Endpoint{next}}); err != nil {
		t.Fatal(err)
	}
	if names := c.names(t); len(names) != 0 {
		t.Fatalf("after the delete, DNSRecords %v are left", names)
	}
	if eps, _ := p.Records(ctx); len(eps) != 0 {
		t.Fatalf("after the delete, the provider holds %v", eps)
	}
}

// Another owner's records are theirs: Records labels them with that owner, and updates, deletes and
// creates over their DNSRecord are refused for that record alone, naming the object; the rest applies.
// A record without any DNSRecord is nobody's.
func TestRegistryLeavesOtherOwnersAlone(t *testing.T) {
	c := startCluster(t)
	ctx := context.Background()
	p := inmemory.New("example.com")
	theirs := c.registry(t, p, "cluster-b", nil)
	if err := theirs.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{
		labelled("b.example.com", "service/default/b", "192.0.2.20"),
		labelled("gone.example.com", "service/default/gone", "192.0.2.21"),
	}}); err != nil {
		t.Fatal(err)
	}
	// gone.example.com leaves the DNS but its DNSRecord stays (someone edited the zone).
	if err := p.ApplyChanges(ctx, &plan.Changes{Delete: []*endpoint.Endpoint{endpoint.New("gone.example.com", "A", "192.0.2.21")},
		Create: []*endpoint.Endpoint{endpoint.New("manual.example.com", "A", "192.0.2.30")}}); err != nil {
		t.Fatal(err)
	}

	ours := c.registry(t, p, "cluster-a", nil)
	eps, err := ours.Records(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if b := find(eps, "b.example.com"); b == nil || b.Owner() != "cluster-b" || b.Resource() != "service/default/b" {
		t.Fatalf("b.example.com: %v", b)
	}
	if m := find(eps, "manual.example.com"); m == nil || m.Owner() != "" {
		t.Fatalf("manual.example.com: %v", m)
	}

	b := find(eps, "b.example.com")
	moved := b.DeepCopy()
	moved.Targets = endpoint.Targets{"192.0.2.99"}
	err = ours.ApplyChanges(ctx, &plan.Changes{
		Create:    []*endpoint.Endpoint{labelled("gone.example.com", "service/default/mine", "192.0.2.40"), labelled("a.example.com", "service/default/a", "192.0.2.10")},
		UpdateOld: []*endpoint.Endpoint{b}, UpdateNew: []*endpoint.Endpoint{moved},
		Delete: []*endpoint.Endpoint{b},
	})
	ae, ok := provider.AsApplyError(err)
	if !ok || len(ae.Rejected) != 1 || !strings.Contains(ae.Rejected[0].Err.Error(), "DNSRecord dns/"+objectName(endpoint.Key{DNSName: "gone.example.com", RecordType: "A"})+` belongs to owner "cluster-b"`) {
		t.Fatalf("ApplyChanges: %v", err)
	}
	if obj := c.get(t, endpoint.Key{DNSName: "gone.example.com", RecordType: "A"}); obj.owner() != "cluster-b" || obj.Spec.Endpoint.Targets[0] != "192.0.2.21" {
		t.Fatalf("the other owner's DNSRecord was changed: %v %+v", obj.Labels, obj.Spec.Endpoint)
	}
	if obj := c.get(t, endpoint.Key{DNSName: "b.example.com", RecordType: "A"}); obj.Spec.Endpoint.Targets[0] != "192.0.2.20" {
		t.Fatalf("the other owner's DNSRecord was updated: %+v", obj.Spec.Endpoint)
	}
	if obj := c.get(t, endpoint.Key{DNSName: "a.example.com", RecordType: "A"}); obj.owner() != "cluster-a" {
		t.Fatalf("a.example.com: %v", obj.Labels)
	}
	recs, _ := p.Records(ctx)
	if b := find(recs, "b.example.com"); b == nil || b.Targets[0] != "192.0.2.20" {
		t.Fatalf("the other owner's record changed: %v", b)
	}
	if g := find(recs, "gone.example.com"); g != nil {
		t.Fatalf("a record was created over another owner's DNSRecord: %v", g)
	}
}

// A DNSRecord that does not hold the record its name says (hand-written, or edited) is reported once,
// by name, and ignored; the other records keep their ownership.
func TestRegistryReportsUnreadableDNSRecord(t *testing.T) {
	c := startCluster(t)
	ctx := context.Background()
	p := inmemory.New("example.com")
	var logs bytes.Buffer
	r := c.registry(t, p, "cluster-a", slog.New(slog.NewTextHandler(&logs, nil)))
	if err := r.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{labelled("web.example.com", "service/default/web", "192.0.2.1")}}); err != nil {
		t.Fatal(err)
	}
	bad := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": apiVersion, "kind": kind,
		"metadata": map[string]any{"name": "hand-written", "namespace": c.ns, "labels": map[string]any{OwnerLabel: "cluster-a"}},
		"spec":     map[string]any{"endpoint": map[string]any{"dnsName": "web.example.com", "recordType": "A", "targets": []any{"192.0.2.9"}}},
	}}
	if _, err := c.dyn.Resource(Resource).Namespace(c.ns).Create(ctx, bad, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		eps, err := r.Records(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if w := find(eps, "web.example.com"); w == nil || w.Owner() != "cluster-a" {
			t.Fatalf("web.example.com: %v", w)
		}
	}
	if n := strings.Count(logs.String(), "DNSRecord dns/hand-written: spec.endpoint is web.example.com A"); n != 1 {
		t.Fatalf("%d warnings naming the object, want 1:\n%s", n, logs.String())
	}
}

// A change the provider refuses leaves its DNSRecord Ready=False/Failed with the provider's reason;
// the others are Programmed.
func TestRegistryMarksRefusedChangesFailed(t *testing.T) {
	c := startCluster(t)
	ctx := context.Background()
	p := inmemory.New("example.com")
	r := c.registry(t, p, "cluster-a", nil)
	good := labelled("good.example.com", "service/default/good", "192.0.2.1")
	outside := labelled("web.example.org", "service/default/web", "192.0.2.2")
	err := r.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{good, outside}})
	if ae, ok := provider.AsApplyError(err); !ok || len(ae.Rejected) != 1 {
		t.Fatalf("ApplyChanges: %v", err)
	}
	if s, reason := ready(c.get(t, good.Key())); s != metav1.ConditionTrue || reason != ProgrammedReason {
		t.Fatalf("good: %s/%s", s, reason)
	}
	obj := c.get(t, outside.Key())
	s, reason := ready(obj)
	msg := meta.FindStatusCondition(obj.Status.Conditions, ReadyCondition).Message
	if s != metav1.ConditionFalse || reason != FailedReason || !strings.Contains(msg, "not in any zone") {
		t.Fatalf("refused: %s/%s %q", s, reason, msg)
	}
}

// wireProvider hands the provider copies of the changes, as a provider that decodes them from the wire
// (the webhook client) does: its refusals name endpoints the registry never saw.
type wireProvider struct{ *inmemory.Provider }

func (w wireProvider) ApplyChanges(ctx context.Context, c *plan.Changes) error {
	cp := func(eps []*endpoint.Endpoint) []*endpoint.Endpoint {
		out := make([]*endpoint.Endpoint, len(eps))
		for i, e := range eps {
			out[i] = e.DeepCopy()
		}
		return out
	}
	return w.Provider.ApplyChanges(ctx, &plan.Changes{Create: cp(c.Create), UpdateOld: cp(c.UpdateOld), UpdateNew: cp(c.UpdateNew), Delete: cp(c.Delete)})
}

// Refusals are matched to the changes by record when the provider does not hand back our pointers.
func TestRegistryMatchesRefusalsFromTheWire(t *testing.T) {
	c := startCluster(t)
	ctx := context.Background()
	r := c.registry(t, wireProvider{inmemory.New("example.com")}, "cluster-a", nil)
	good := labelled("good.example.com", "service/default/good", "192.0.2.1")
	outside := labelled("web.example.org", "service/default/web", "192.0.2.2")
	if _, ok := provider.AsApplyError(r.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{good, outside}})); !ok {
		t.Fatal("no *provider.ApplyError")
	}
	if s, reason := ready(c.get(t, good.Key())); s != metav1.ConditionTrue || reason != ProgrammedReason {
		t.Errorf("good: %s/%s", s, reason)
	}
	if s, reason := ready(c.get(t, outside.Key())); s != metav1.ConditionFalse || reason != FailedReason {
		t.Errorf("refused: %s/%s", s, reason)
	}
}
