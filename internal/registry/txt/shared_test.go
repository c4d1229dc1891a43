package txt

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider/inmemory"
)

// TestSharedRecordsStayAsHandedOut: SharedRecordsWithGeneration hands out the memo's own endpoints,
// without copies. Over random creates, updates (owner hand-over too), deletes, foreign TXTs and
// relistings, each list must equal what RecordsWithGeneration returns at the same moment, and every
// endpoint handed out earlier must still be exactly as it was, while a reader goes through them all
// concurrently (run with -race to see a write to one).
func TestSharedRecordsStayAsHandedOut(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rnd := rand.New(rand.NewSource(seed))
	p := inmemory.New("example.com")
	reg := mustNew(t, p, Config{OwnerID: "me", CacheInterval: time.Hour})
	ctx := context.Background()

	type handedOut struct {
		shared, snapshot []*endpoint.Endpoint
	}
	var mu sync.Mutex
	var lists []handedOut
	done := make(chan struct{})
	var reader sync.WaitGroup
	reader.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			mu.Lock()
			all := lists
			mu.Unlock()
			for _, l := range all {
				for _, e := range l.shared {
					_ = fmt.Sprint(e.DNSName, e.Targets, e.Labels, e.ProviderSpecific)
				}
			}
		}
	})
	defer func() { close(done); reader.Wait() }()

	names := []string{"a.example.com", "b.example.com", "*.example.com", "c.a.example.com"}
	for step := range 200 {
		shared, serial, mutations, err := reg.SharedRecordsWithGeneration(ctx)
		if err != nil {
			t.Fatal(err)
		}
		copied, cSerial, cMutations, err := reg.RecordsWithGeneration(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(shared, copied) || serial != cSerial || mutations != cMutations {
			t.Fatalf("step %d: shared records %s (%d/%d), copies %s (%d/%d)", step, describeAll(shared), serial, mutations,
				describeAll(copied), cSerial, cMutations)
		}
		snapshot := make([]*endpoint.Endpoint, len(shared))
		for i, e := range shared {
			snapshot[i] = e.DeepCopy()
		}
		mu.Lock()
		lists = append(lists, handedOut{shared: shared, snapshot: snapshot})
		mu.Unlock()

		name := names[rnd.Intn(len(names))]
		existing := find(shared, name, endpoint.RecordTypeA)
		c := &plan.Changes{}
		switch {
		case rnd.Intn(8) == 0:
			foreign := endpoint.New(reg.Mapper().TXTName(name, endpoint.RecordTypeA), endpoint.RecordTypeTXT,
				`"heritage=external-dns,external-dns/owner=other,external-dns/resource=service/x/y"`)
			_ = p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{foreign}})
			reg.Invalidate()
		case existing == nil:
			c.Create = []*endpoint.Endpoint{endpoint.New(name, endpoint.RecordTypeA, fmt.Sprintf("192.0.2.%d", step%250+1)).
				WithLabel(endpoint.ResourceLabelKey, fmt.Sprintf("ingress/default/%d", step%3))} // values repeat: label maps shared
		case existing.Owner() == "me" && rnd.Intn(2) == 0:
			// As a plan does: the shared record itself goes out as UpdateOld.
			nu := existing.DeepCopy()
			nu.Targets = endpoint.Targets{fmt.Sprintf("192.0.2.%d", step%250+1)}
			nu.Labels[endpoint.ResourceLabelKey] = fmt.Sprintf("ingress/default/%d", step%3)
			c.UpdateOld, c.UpdateNew = []*endpoint.Endpoint{existing}, []*endpoint.Endpoint{nu}
		case existing.Owner() == "me":
			c.Delete = []*endpoint.Endpoint{existing}
		}
		if c.HasChanges() {
			_ = reg.ApplyChanges(ctx, c)
		}
		if rnd.Intn(10) == 0 {
			reg.Invalidate() // the next read lists the provider and may reinstall the same cache
		}
		mu.Lock()
		for i, l := range lists {
			for j, e := range l.shared {
				if !reflect.DeepEqual(e, l.snapshot[j]) {
					t.Fatalf("step %d: record %d of list %d changed after it was handed out: %v, was %v", step, j, i, e, l.snapshot[j])
				}
			}
		}
		mu.Unlock()
	}
}
