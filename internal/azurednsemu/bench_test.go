package azurednsemu

import (
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// benchZone starts the emulator over TLS with one public zone holding n A
// record sets, and returns its URL, a client that trusts it and the zone's
// path.
func benchZone(b *testing.B, n int) (string, *http.Client, string) {
	b.Helper()
	ca, err := NewTestCA(DefaultTLSHosts...)
	if err != nil {
		b.Fatal(err)
	}
	emu := New(Options{StaticTokens: []string{"t"}})
	z := SeedZone{Name: "example.com"}
	for i := range n {
		z.RecordSets = append(z.RecordSets, SeedRecordSet{Name: fmt.Sprintf("h%05d", i), Type: "A", TTL: 60, Records: []string{"192.0.2.1"}})
	}
	mustSeed(b, emu, Seed{Subscriptions: []SeedSubscription{{ID: testSub, ResourceGroups: []SeedResourceGroup{{Name: testRG, Zones: []SeedZone{z}}}}}})
	ts := httptest.NewUnstartedServer(emu)
	ts.TLS = ca.ServerTLS()
	ts.StartTLS()
	b.Cleanup(ts.Close)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.Pool}, MaxIdleConnsPerHost: 4}}
	return ts.URL, client, "/subscriptions/" + testSub + "/resourceGroups/" + testRG + "/providers/Microsoft.Network/dnsZones/example.com"
}

func do(b *testing.B, c *http.Client, method, url, body string, want int) {
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer t")
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != want {
		b.Fatalf("%s %s: %d, want %d", method, url, resp.StatusCode, want)
	}
}

// BenchmarkPutBatchIntoLargeZone replaces 100 TXT record sets (one op is
// the batch of 100 PUTs, as a provider sends them one by one) in a zone of
// 9,000 record sets, over TLS with keep-alive.
func BenchmarkPutBatchIntoLargeZone(b *testing.B) {
	url, c, zone := benchZone(b, 9000)
	for i := range 100 {
		do(b, c, "PUT", fmt.Sprintf("%s%s/TXT/t%03d?api-version=2018-05-01", url, zone, i), `{"properties":{"TTL":300,"TXTRecords":[{"value":["v0"]}]}}`, 201)
	}
	b.ResetTimer()
	for n := range b.N {
		body := fmt.Sprintf(`{"properties":{"TTL":300,"TXTRecords":[{"value":["heritage=external-dns,external-dns/owner=default,v%d"]}]}}`, n)
		for i := range 100 {
			do(b, c, "PUT", fmt.Sprintf("%s%s/TXT/t%03d?api-version=2018-05-01", url, zone, i), body, 200)
		}
	}
}

// BenchmarkListPage lists one page (100, the default) of a 9,000-set zone:
// the first page and the last one (reached with its skip token).
func BenchmarkListPage(b *testing.B) {
	url, c, zone := benchZone(b, 9000)
	for _, bc := range []struct{ name, query string }{
		{"first", ""},
		{"last", "&$skipToken=aDA4ODk5AEE"}, // after h08899/A
	} {
		b.Run(bc.name, func(b *testing.B) {
			for range b.N {
				do(b, c, "GET", url+zone+"/all?api-version=2018-05-01"+bc.query, "", 200)
			}
		})
	}
}
