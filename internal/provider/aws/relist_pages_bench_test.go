package aws

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

// cannedReads answers each GET with the bytes the emulator gave the first time that URL was asked,
// so that a benchmark measures the client (the SDK, the provider) and not the emulator's encoding,
// which in the side-by-side run happens in another process. Other methods go to the emulator.
type cannedReads struct {
	next http.Handler
	mu   sync.Mutex
	got  map[string][]byte
}

func (c *cannedReads) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		c.next.ServeHTTP(w, r)
		return
	}
	c.mu.Lock()
	body, ok := c.got[r.URL.RequestURI()]
	c.mu.Unlock()
	if !ok {
		rec := httptest.NewRecorder()
		c.next.ServeHTTP(rec, r)
		if rec.Code != http.StatusOK {
			http.Error(w, rec.Body.String(), rec.Code)
			return
		}
		body = bytes.Clone(rec.Body.Bytes())
		c.mu.Lock()
		c.got[r.URL.RequestURI()] = body
		c.mu.Unlock()
	}
	w.Header().Set("Content-Type", "text/xml")
	_, _ = w.Write(body)
}

// BenchmarkRelistUnchangedClientSide is the paced full relisting of an idle zone (CheckZones with the
// relisting due) as the zonekeeper process pays for it: the answers are canned bytes (cannedReads),
// so ns/op, B/op and allocs/op are the SDK's and the provider's. 2n+2 record sets, n hosts each with
// an A record and its ownership TXT; 1,000 hosts is the side-by-side run at N=1k (7 pages). Run:
//
//	go test -run '^$' -bench 'RelistUnchangedClientSide' -benchmem -benchtime 50x ./internal/provider/aws/
func BenchmarkRelistUnchangedClientSide(b *testing.B) {
	for _, hosts := range []int{1000, 20000} {
		b.Run(fmt.Sprintf("sets=%d", 2*hosts+2), func(b *testing.B) {
			staticCredentials(b)
			srv := route53emu.New(route53emu.Options{})
			hs := httptest.NewServer(&cannedReads{next: srv, got: map[string][]byte{}})
			b.Cleanup(hs.Close)
			seed(b, srv, ownedZone(budgetZone, hosts))
			p := newProvider(b, hs.URL, Config{})
			ctx := ctxT(b)
			if _, err := p.Records(ctx); err != nil {
				b.Fatal(err)
			}
			if _, err := p.CheckZones(ctx, time.Nanosecond); err != nil { // fills the canned answers
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if stale, err := p.CheckZones(ctx, time.Nanosecond); err != nil || len(stale) > 0 {
					b.Fatalf("CheckZones = %v, %v", stale, err)
				}
			}
		})
	}
}
