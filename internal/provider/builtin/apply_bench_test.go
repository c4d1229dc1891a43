package builtin

import (
	"context"
	"fmt"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/dnsserver"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

// BenchmarkApplyChanges100 is one event's write in make bench-million's shape: the view holds N names
// (iNNNNNN-rMMM.example.com, one A record each, written in one batch as the first sync writes them)
// and each op is one ApplyChanges that updates the address of 100 of them (one Ingress's hosts), a
// different Ingress each time. The op includes building the 100 new endpoints (a few allocations
// each), as the controller does. A write whose cost follows the batch, not N, has the same ns/op and
// B/op at every N.
//
//	go test -run '^$' -bench ApplyChanges100 -benchmem ./internal/provider/builtin/
func BenchmarkApplyChanges100(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("names=%d", n), func(b *testing.B) {
			srv, err := dnsserver.New(dnsserver.Config{Listen: []string{"127.0.0.1:0"}, Zones: []string{perfZone}}, nil)
			if err != nil {
				b.Fatal(err)
			}
			p, err := New(srv, "default")
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			held := make([]*endpoint.Endpoint, n)
			for i := range held {
				held[i] = endpoint.NewWithTTL(fmt.Sprintf("i%06d-r%03d.%s", i/100, i%100, perfZone), endpoint.RecordTypeA, 300, benchAddress(i, 0))
			}
			if err := p.ApplyChanges(ctx, &plan.Changes{Create: held}); err != nil {
				b.Fatal(err)
			}
			ingresses := n / 100
			round := 0
			b.ReportAllocs()
			for b.Loop() {
				round++
				first := (round % ingresses) * 100
				ch := &plan.Changes{UpdateOld: held[first : first+100], UpdateNew: make([]*endpoint.Endpoint, 100)}
				for j := range ch.UpdateNew {
					e := *held[first+j]
					e.Targets = endpoint.Targets{benchAddress(first+j, round)}
					ch.UpdateNew[j] = &e
				}
				if err := p.ApplyChanges(ctx, ch); err != nil {
					b.Fatal(err)
				}
				copy(held[first:first+100], ch.UpdateNew)
			}
		})
	}
}

// benchAddress is the address of name i after round changes (different from the previous round's).
func benchAddress(i, round int) string {
	return fmt.Sprintf("10.%d.%d.%d", round%250, i>>8&255, i&255)
}
