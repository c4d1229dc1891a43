package webhook

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// batch returns n hostnames, each an A record with its ownership TXT (2n changes), and the names of
// every step-th hostname, which a server is told to refuse.
func batch(n, step int) (changes []*endpoint.Endpoint, refused map[string]bool) {
	refused = map[string]bool{}
	for i := 0; i < n; i++ {
		e := endpoint.New(fmt.Sprintf("host%04d.example.com", i), endpoint.RecordTypeA, "192.0.2.1")
		changes = append(changes, e, owned(e))
		if step > 0 && i%step == step/2 {
			refused[e.DNSName] = true
		}
	}
	return changes, refused
}

// applyRefusing sends the changes to a server refusing the given names with a bare 500 and checks that
// exactly the refused records and their TXTs are reported, with the server's answer, and that every
// other change was applied exactly once. It returns the POSTs it took.
func applyRefusing(t *testing.T, changes []*endpoint.Endpoint, refused map[string]bool) int {
	t.Helper()
	f := &fakeWebhook{refuseSet: refused}
	p := start(t, f)
	err := p.ApplyChanges(context.Background(), &plan.Changes{Create: changes})
	ae, ok := provider.AsApplyError(err)
	if !ok {
		t.Fatalf("ApplyChanges = %v, want an ApplyError", err)
	}
	heldBack, unanswered := 0, 0
	for _, r := range ae.Rejected {
		name := strings.TrimPrefix(r.Endpoint.DNSName, "a-")
		switch {
		case !refused[name]:
			heldBack++
		case !strings.Contains(r.Err.Error(), name+" is not allowed"):
			unanswered++
		}
	}
	if heldBack > 0 {
		t.Errorf("%d changes the server takes were reported instead of applied", heldBack)
	}
	if unanswered > 0 {
		t.Errorf("%d refused changes reported without the server's answer for them", unanswered)
	}
	if want := 2 * len(refused); len(ae.Rejected)-heldBack != want {
		t.Errorf("%d refused changes reported, want %d", len(ae.Rejected)-heldBack, want)
	}
	seen := map[string]bool{}
	for _, a := range f.applied {
		if seen[a] {
			t.Errorf("%s applied twice", a)
		}
		seen[a] = true
	}
	if want := len(changes) - 2*len(refused); len(f.applied) != want {
		t.Errorf("applied %d changes, want the %d the server takes (%d good ones held back)", len(f.applied), want, want-len(f.applied))
	}
	return f.posts
}

// Refusals spread over a large batch — each in a different part of it — cost more refusals to isolate
// than a server refusing everything may cost; still every change the server takes is applied in the
// same call, and only the refused ones are reported.
func TestSpreadRefusalsDoNotHoldBackGoodChanges(t *testing.T) {
	changes, refused := batch(1000, 33) // 2,000 changes, 30 refused hostnames
	if len(refused) != 31 && len(refused) != 30 {
		t.Fatalf("model: %d refused", len(refused))
	}
	posts := applyRefusing(t, changes, refused)
	t.Logf("2,000 changes, %d spread refusals: %d POSTs", len(refused), posts)
}

// A block of adjacent refused records larger than the budget — a zone the server does not host, whose
// names sort together — does not hold back the records after it.
func TestAdjacentRefusalsDoNotHoldBackGoodChanges(t *testing.T) {
	changes, _ := batch(1000, 0)
	refused := map[string]bool{}
	for i := 400; i < 600; i++ {
		refused[fmt.Sprintf("host%04d.example.com", i)] = true
	}
	posts := applyRefusing(t, changes, refused)
	t.Logf("2,000 changes, 200 adjacent refusals: %d POSTs", posts)
}

// Many refusals over a batch, mixed: a block and a spread.
func TestManyRefusalsMixed(t *testing.T) {
	changes, refused := batch(1000, 7)
	for i := 100; i < 180; i++ {
		refused[fmt.Sprintf("host%04d.example.com", i)] = true
	}
	posts := applyRefusing(t, changes, refused)
	t.Logf("2,000 changes, %d refusals: %d POSTs", len(refused), posts)
}

// A server refusing everything with a bare 500 — its DNS service is down — still costs only the split
// budget, also for a batch of 2,000 changes.
func TestRefusingEverythingCostsTheBudgetAt2000(t *testing.T) {
	f := &fakeWebhook{status: http.StatusInternalServerError}
	p := start(t, f)
	changes, _ := batch(1000, 0)
	ae, ok := provider.AsApplyError(p.ApplyChanges(context.Background(), &plan.Changes{Create: changes}))
	if !ok || len(ae.Rejected) != 2000 {
		t.Fatalf("want all 2000 changes reported, got %v", ae)
	}
	if budget := splitBudget(1000); f.posts > budget {
		t.Errorf("%d POSTs, want at most the budget %d", f.posts, budget)
	}
	t.Logf("2,000 changes refused whole: %d POSTs (budget %d)", f.posts, splitBudget(1000))
}

// An outage that starts in the middle of a split — the server applied some requests, then refuses
// everything — costs at most the split budget from then on.
func TestOutageDuringSplitCostsTheBudget(t *testing.T) {
	changes, refused := batch(1000, 33)
	f := &fakeWebhook{refuseSet: refused}
	const healthy = 40 // POSTs answered before the DNS service goes down
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		down := r.Method == http.MethodPost && f.posts >= healthy
		if down {
			f.posts++
		}
		f.mu.Unlock()
		if down {
			http.Error(w, "the DNS API is down", http.StatusInternalServerError)
			return
		}
		f.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	p, err := New(Config{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	ae, ok := provider.AsApplyError(p.ApplyChanges(context.Background(), &plan.Changes{Create: changes}))
	if !ok {
		t.Fatal("no change reported")
	}
	if after := f.posts - healthy; after > splitBudget(1000) {
		t.Errorf("%d POSTs after the outage began, want at most the budget %d", after, splitBudget(1000))
	}
	if len(f.applied)+len(ae.Rejected) != len(changes) {
		t.Errorf("%d applied + %d reported, want all %d changes accounted for", len(f.applied), len(ae.Rejected), len(changes))
	}
}
