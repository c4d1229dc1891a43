package pdns

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// server is one real pdns_server with example.com, and a provider configured for it.
type server struct {
	pdns *testbed.PowerDNS
	p    *Provider
}

func startServer(t testing.TB, zones ...string) *server {
	t.Helper()
	if len(zones) == 0 {
		zones = []string{"example.com"}
	}
	pd := testbed.StartPowerDNS(t, zones...)
	p, err := New(Config{Server: pd.APIURL, APIKey: pd.APIKey, DomainFilter: []string{"example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	return &server{pdns: pd, p: p}
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// lookup asks pdns_server over DNS (TCP, so long TXT answers are never truncated).
func (s *server) lookup(t testing.TB, name string, qtype uint16) []dns.RR {
	t.Helper()
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), qtype)
	c := &dns.Client{Net: "tcp", Timeout: 5 * time.Second}
	r, _, err := c.Exchange(m, s.pdns.Addr)
	if err != nil {
		t.Fatalf("DNS %s %s: %v", name, dns.TypeToString[qtype], err)
	}
	return r.Answer
}

// rrsets reads a zone through the API directly: what is really stored.
func (s *server) rrsets(t testing.TB, zone string) map[string]rrset {
	t.Helper()
	status, body := s.pdns.API(t, http.MethodGet, "/api/v1/servers/localhost/zones/"+zone+".", nil)
	if status != http.StatusOK {
		t.Fatalf("GET zone %s: %d %s", zone, status, body)
	}
	var z zoneData
	if err := json.Unmarshal(body, &z); err != nil {
		t.Fatal(err)
	}
	out := map[string]rrset{}
	for _, rs := range z.RRsets {
		out[strings.TrimSuffix(rs.Name, ".")+" "+rs.Type] = rs
	}
	return out
}

// seed writes an rrset straight through the API, as another tool or a person would.
func (s *server) seed(t testing.TB, zone, name, rtype string, ttl int, contents ...string) {
	t.Helper()
	rs := rrset{Name: name + ".", Type: rtype, TTL: int64(ttl), ChangeType: changeReplace}
	for _, c := range contents {
		rs.Records = append(rs.Records, record{Content: c})
	}
	status, body := s.pdns.API(t, http.MethodPatch, "/api/v1/servers/localhost/zones/"+zone+".", patchBody{RRsets: []rrset{rs}})
	if status != http.StatusNoContent {
		t.Fatalf("seeding %s %s: %d %s", name, rtype, status, body)
	}
}
