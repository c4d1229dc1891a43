package cloudflareemu

import (
	"net/http"
	"testing"
)

// The zone probe of zonekeeper's Cloudflare provider reads result_info.total_count from the first
// page of the smallest size (per_page=5) of an unfiltered DNS records list: it must count every
// record of the zone, of any type, whatever the page size, and move with each create and delete. The
// API description calls total_count the "total results available without any search parameters".
func TestTotalCountCountsEveryRecordOnTheSmallestPage(t *testing.T) {
	env := newEnv(t, Options{})
	recs := []SeedRecord{
		{Name: "a", Type: "A", Content: "192.0.2.1"}, {Name: "a", Type: "AAAA", Content: "2001:db8::1"},
		{Name: "t", Type: "TXT", Content: "x"}, {Name: "m", Type: "MX", Content: "mx.example.net", Priority: new(int)},
		{Name: "c", Type: "CAA", Data: map[string]any{"flags": 0, "tag": "issue", "value": "ca.example.net"}},
		{Name: "n", Type: "CNAME", Content: "example.net"}, {Name: "s", Type: "TXT", Content: "y"},
	}
	got, err := env.srv.Seed(Seed{Zones: []SeedZone{{Name: "example.org", Records: recs}}})
	if err != nil {
		t.Fatal(err)
	}
	zid := got[0].ID
	probe := func() resultInfo {
		t.Helper()
		status, e := env.do(t, http.MethodGet, APIPrefix+"zones/"+zid+"/dns_records?per_page=5&page=1", nil)
		if status != 200 || e.ResultInfo == nil {
			t.Fatalf("probe: %d %s", status, e.raw)
		}
		return *e.ResultInfo
	}
	if ri := probe(); ri != (resultInfo{Page: 1, PerPage: 5, Count: 5, TotalCount: 7, TotalPages: 2}) {
		t.Fatalf("result_info of the probe: %+v", ri)
	}
	status, e := env.do(t, http.MethodPost, APIPrefix+"zones/"+zid+"/dns_records", map[string]any{"name": "new", "type": "A", "content": "192.0.2.9"})
	if status != 200 {
		t.Fatalf("create: %d %s", status, e.raw)
	}
	if ri := probe(); ri.TotalCount != 8 {
		t.Fatalf("after a create: total_count %d, want 8", ri.TotalCount)
	}
	if status, e := env.do(t, http.MethodGet, APIPrefix+"zones/"+zid+"/dns_records?per_page=4", nil); status != 400 || e.code() != CodeInvalidQuery {
		t.Fatalf("per_page=4, below the documented minimum of 5: %d %s", status, e.raw)
	}
}
