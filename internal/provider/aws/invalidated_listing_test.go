package aws

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

// An Invalidate while Records lists (the webhook server invalidates at every GET /records and at a
// failed apply, from concurrent requests) made the listing in flight unstored and Records return the
// cache as it was left: empty, with no error, which a caller takes for zones without records. Records
// now lists again and returns every record set.
func TestRecordsListsAgainWhenInvalidatedMeanwhile(t *testing.T) {
	staticCredentials(t)
	srv := route53emu.New(route53emu.Options{})
	seed(t, srv, ownedRecords("one.test", "a", "b"))
	var p *Provider
	var once sync.Once
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/rrset") {
			once.Do(p.Invalidate) // during the first listing of the zone
		}
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	p = newProvider(t, hs.URL, Config{})
	eps, err := p.Records(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := epNames(eps); !strings.Contains(got, "a.one.test=192.0.2.1") || !strings.Contains(got, "b.one.test=192.0.2.2") {
		t.Fatalf("Records after an Invalidate during its listing = %q, want a.one.test and b.one.test", got)
	}
	if _, ok := p.ListingVersion(); !ok {
		t.Fatal("the listing made after the Invalidate is cached")
	}
}
