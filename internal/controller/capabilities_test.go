package controller

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/provider/inmemory"
	"github.com/zonekeeper/zonekeeper/internal/registry/txt"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// sendingProvider records every change sent to the zone it wraps.
type sendingProvider struct {
	*inmemory.Provider
	sent []string
}

func (p *sendingProvider) ApplyChanges(ctx context.Context, c *plan.Changes) error {
	for _, list := range [][]*endpoint.Endpoint{c.Create, c.UpdateNew, c.Delete} {
		for _, e := range list {
			p.sent = append(p.sent, e.DNSName+" "+e.RecordType)
		}
	}
	return p.Provider.ApplyChanges(ctx, c)
}

// problemRecorder is a Notifier that keeps the problems it is told.
type problemRecorder struct {
	noNotifier
	problems []endpoint.Problem
}

func (r *problemRecorder) InvalidInput(p endpoint.Problem) { r.problems = append(r.problems, p) }

// Issue 13: a record type, a set identifier or a wildcard the provider cannot hold is a problem on its
// object, found before anything is sent; the provider never sees it and the other records are
// published. An update the provider cannot hold leaves the record as it is, and deletes pass.
func TestRecordsTheProviderCannotHoldAreProblemsOnTheirObjects(t *testing.T) {
	p := &sendingProvider{Provider: inmemory.New("example.com")}
	reg, err := txt.New(p, txt.Config{OwnerID: "test", CacheInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	caps := provider.Capabilities{RecordTypes: []string{endpoint.RecordTypeA, endpoint.RecordTypeTXT}, Wildcards: true}
	notes := &problemRecorder{}
	logs := &testbed.LogBuffer{}
	src := &listSource{}
	var last Report
	c := New(src, reg, Settings{OwnerID: "test", Policy: plan.PolicySync, ManagedRecordTypes: []string{"A", "MX"},
		Capabilities: &caps, ProviderName: "coredns", Notifier: notes, Observer: observerFunc(func(r Report) { last = r })},
		slog.New(slog.NewTextHandler(logs, nil)))
	wildcard := a("*.apps.example.com", "192.0.2.9", "ingress/default/apps")
	src.set(nil, wildcard, a("web.example.com", "192.0.2.1", "service/default/web"))
	if _, err := c.RunOnce(context.Background()); err != nil { // wildcards still allowed: created
		t.Fatal(err)
	}

	caps.Wildcards = false
	p.sent = nil
	moved := a("*.apps.example.com", "192.0.2.10", "ingress/default/apps")
	src.set(nil, moved,
		a("web.example.com", "192.0.2.1", "service/default/web"),
		a("new.example.com", "192.0.2.2", "service/default/new"),
		a("eu.example.com", "192.0.2.3", "service/default/weighted").WithSetIdentifier("eu"),
		endpoint.New("example.com", endpoint.RecordTypeMX, "10 mail.example.com").WithLabel(endpoint.ResourceLabelKey, "crd/default/mail"))
	out, err := c.RunOnce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(p.sent, ",") != "new.example.com A,a-new.example.com TXT" && strings.Join(p.sent, ",") != "a-new.example.com TXT,new.example.com A" {
		t.Fatalf("sent to the provider: %v, want only new.example.com and its ownership record", p.sent)
	}
	if out.Rejected != 0 {
		t.Fatalf("%d changes rejected by the provider, want none sent", out.Rejected)
	}
	got := records(t, p.Provider)
	if got["*.apps.example.com A"] != "192.0.2.9" {
		t.Fatalf("the wildcard the provider cannot hold any more was changed or deleted: %v", got)
	}
	want := map[string]string{
		"ingress default/apps":     "*.apps.example.com A",
		"service default/weighted": "eu.example.com A [eu]",
		"DNSEndpoint default/mail": "example.com MX",
	}
	if len(notes.problems) != len(want) || len(out.Problems) != len(want) {
		t.Fatalf("problems told %v, outcome %v; want one per object %v", notes.problems, out.Problems, want)
	}
	for _, pr := range notes.problems {
		if want[pr.Object.String()] != pr.Value || pr.Field != "record" || !strings.Contains(pr.Reason, "the coredns provider cannot hold it") {
			t.Errorf("problem %+v does not name its object and record as %v", pr, want)
		}
	}
	if last.Problems != len(want) || len(last.ProblemList) != len(want) { // the DNSEndpoint status reads them there
		t.Errorf("the report lists %d problems (%v), want %d", last.Problems, last.ProblemList, len(want))
	}
	for _, line := range []string{"action=UPDATE record=*.apps.example.com type=A", "action=CREATE record=eu.example.com type=A",
		"action=CREATE record=example.com type=MX", "wildcard names are not supported", "set identifiers are not supported",
		"record type MX is not supported"} {
		if !strings.Contains(logs.String(), line) {
			t.Errorf("log lacks %q:\n%s", line, logs)
		}
	}

	// The problems persist: logged and told once; nothing more is sent.
	p.sent = nil
	if _, err := c.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(logs.String(), "Change left out"); n != 3 || len(notes.problems) != 3 || len(p.sent) != 0 {
		t.Fatalf("second run: %d log lines, %d problems told, sent %v", n, len(notes.problems), p.sent)
	}

	// A delete passes: the record the object no longer asks for goes, wildcard or not.
	src.set(nil, a("web.example.com", "192.0.2.1", "service/default/web"), a("new.example.com", "192.0.2.2", "service/default/new"))
	if _, err := c.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, ok := records(t, p.Provider)["*.apps.example.com A"]; ok {
		t.Fatal("the wildcard record was not deleted once its object stopped asking for it")
	}
}

// A problem's scope token is the resource label its object's endpoints carry, so that an event's run
// forgets exactly the problems of the objects it covers: DNSEndpoints are labelled "crd", cluster-scoped
// objects have no namespace part.
func TestResourceLabelIsResourceRefsInverse(t *testing.T) {
	for _, label := range []string{"ingress/default/web", "service/a-x/db", "crd/team/records", "node/n1", "httproute/default/r"} {
		if got := resourceLabel(resourceRef(label)); got != label {
			t.Errorf("resourceLabel(resourceRef(%q)) = %q", label, got)
		}
	}
	p := endpoint.Problem{Object: endpoint.ObjectRef{Kind: "DNSEndpoint", Namespace: "team", Name: "records"}}
	if got := problemToken(p); got != "crd/team/records" {
		t.Errorf("a DNSEndpoint problem's token is %q, want its resource label crd/team/records", got)
	}
}
