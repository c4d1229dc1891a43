package cloudflareemu

import (
	"context"
	"net/http"
	"testing"

	cloudflare "github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/dns"
)

func TestRecordLifecycleThroughSDK(t *testing.T) {
	env := newEnv(t, Options{})
	ctx := context.Background()
	rec, err := env.client.DNS.Records.New(ctx, dns.RecordNewParams{
		ZoneID: cloudflare.F(env.zoneID),
		Body: dns.ARecordParam{
			Name: cloudflare.F("www"), TTL: cloudflare.F(dns.TTL(300)), Type: cloudflare.F(dns.ARecordTypeA),
			Content: cloudflare.F("192.0.2.1"), Comment: cloudflare.F("hello"),
			Tags: cloudflare.F([]dns.RecordTagsParam{"owner:dns"}),
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !isID(rec.ID) || rec.Name != "www.example.com" || rec.Content != "192.0.2.1" || rec.TTL != 300 || rec.Comment != "hello" || !rec.Proxiable {
		t.Fatalf("created record = %+v", rec)
	}
	// PATCH changes only what is sent.
	edited, err := env.client.DNS.Records.Edit(ctx, rec.ID, dns.RecordEditParams{
		ZoneID: cloudflare.F(env.zoneID),
		Body:   dns.ARecordParam{Proxied: cloudflare.F(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !edited.Proxied || edited.TTL != 1 || edited.Content != "192.0.2.1" || edited.Comment != "hello" {
		t.Fatalf("after PATCH proxied=true want content/comment kept and TTL automatic: %+v", edited)
	}
	// PUT replaces the whole record: the comment and tags go.
	put, err := env.client.DNS.Records.Update(ctx, rec.ID, dns.RecordUpdateParams{
		ZoneID: cloudflare.F(env.zoneID),
		Body: dns.ARecordParam{
			Name: cloudflare.F("www.example.com"), TTL: cloudflare.F(dns.TTL(120)), Type: cloudflare.F(dns.ARecordTypeA),
			Content: cloudflare.F("192.0.2.2"),
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if put.Proxied || put.TTL != 120 || put.Content != "192.0.2.2" || put.Comment != "" {
		t.Fatalf("after PUT: %+v", put)
	}
	got, err := env.client.DNS.Records.Get(ctx, rec.ID, dns.RecordGetParams{ZoneID: cloudflare.F(env.zoneID)})
	if err != nil || got.Content != "192.0.2.2" {
		t.Fatalf("GET after PUT: %+v, %v", got, err)
	}
	if _, err := env.client.DNS.Records.Delete(ctx, rec.ID, dns.RecordDeleteParams{ZoneID: cloudflare.F(env.zoneID)}); err != nil {
		t.Fatal(err)
	}
	_, err = env.client.DNS.Records.Get(ctx, rec.ID, dns.RecordGetParams{ZoneID: cloudflare.F(env.zoneID)})
	if status, code := sdkErrorCode(t, err); status != http.StatusNotFound || code != CodeRecordNotFound {
		t.Fatalf("GET deleted record: status %d code %d", status, code)
	}
	c := env.srv.Counters()
	for op, n := range map[string]int{OpRecordsNew: 1, OpRecordsEdit: 1, OpRecordsUpdate: 1, OpRecordsGet: 2, OpRecordsDelete: 1} {
		if c.Calls[op] != n {
			t.Errorf("counter %s = %d, want %d (all: %v)", op, c.Calls[op], n, c.Calls)
		}
	}
}

func TestRecordValidationCodes(t *testing.T) {
	env := newEnv(t, Options{})
	path := APIPrefix + "zones/" + env.zoneID + "/dns_records"
	post := func(body map[string]any) (int, int) {
		status, e := env.do(t, http.MethodPost, path, body)
		if status < 400 && e.Success {
			return status, 0
		}
		if e.Success || e.Result != nil && string(e.Result) != "null" {
			t.Errorf("error envelope must have success=false and result=null: %s", e.raw)
		}
		return status, e.code()
	}
	cases := []struct {
		name string
		body map[string]any
		code int
	}{
		{"A content not IPv4", map[string]any{"name": "a", "type": "A", "content": "2001:db8::1", "ttl": 1}, CodeInvalidContentA},
		{"AAAA content not IPv6", map[string]any{"name": "a", "type": "AAAA", "content": "192.0.2.1", "ttl": 1}, CodeInvalidContentAAAA},
		{"TTL 30 on Free", map[string]any{"name": "a", "type": "A", "content": "192.0.2.1", "ttl": 30}, CodeInvalidTTL},
		{"TTL over a day", map[string]any{"name": "a", "type": "A", "content": "192.0.2.1", "ttl": 86401}, CodeInvalidTTL},
		{"TXT proxied", map[string]any{"name": "a", "type": "TXT", "content": "x", "proxied": true}, CodeProxyNotAllowed},
		{"MX without priority", map[string]any{"name": "a", "type": "MX", "content": "mx.example.net"}, CodeInvalidPriority},
		{"CNAME content not a host", map[string]any{"name": "a", "type": "CNAME", "content": "not a host"}, CodeInvalidContent},
		{"SRV name without _service._proto", map[string]any{"name": "srv", "type": "SRV", "data": map[string]any{"priority": 1, "weight": 2, "port": 3, "target": "t.example.net"}}, CodeInvalidName},
		{"CAA bad tag", map[string]any{"name": "a", "type": "CAA", "data": map[string]any{"flags": 0, "tag": "bogus", "value": "x"}}, CodeInvalidData},
		{"TLSA as content", map[string]any{"name": "_443._tcp.a", "type": "TLSA", "content": "3 1 1 abcd"}, CodeInvalidData},
		{"unknown type", map[string]any{"name": "a", "type": "LOC", "content": "x"}, CodeInvalidType},
		{"unknown field", map[string]any{"name": "a", "type": "A", "content": "192.0.2.1", "zone_name": "x"}, CodeUnknownField},
		{"comment over 100 on Free", map[string]any{"name": "a", "type": "TXT", "content": "x", "comment": string(make([]byte, 101))}, CodeInvalidComment},
		{"tag without value", map[string]any{"name": "a", "type": "TXT", "content": "x", "tags": []string{"novalue"}}, CodeInvalidTags},
		{"bad name", map[string]any{"name": "a b", "type": "TXT", "content": "x"}, CodeInvalidName},
	}
	for _, tc := range cases {
		if status, code := post(tc.body); status != http.StatusBadRequest || code != tc.code {
			t.Errorf("%s: got status %d code %d, want 400 code %d", tc.name, status, code, tc.code)
		}
	}
	if n := len(env.srv.Dump()[0].Records); n != 0 {
		t.Fatalf("refused records were stored: %d", n)
	}
}

func TestDuplicateAndCNAMEConflicts(t *testing.T) {
	env := newEnv(t, Options{})
	path := APIPrefix + "zones/" + env.zoneID + "/dns_records"
	mustPost := func(body map[string]any) {
		t.Helper()
		if status, e := env.do(t, http.MethodPost, path, body); status != 200 || !e.Success {
			t.Fatalf("POST %v: %d %s", body, status, e.raw)
		}
	}
	expect := func(body map[string]any, code int) {
		t.Helper()
		if status, e := env.do(t, http.MethodPost, path, body); status != 400 || e.code() != code {
			t.Fatalf("POST %v: got %d %s, want code %d", body, status, e.raw, code)
		}
	}
	mustPost(map[string]any{"name": "a", "type": "A", "content": "192.0.2.1"})
	mustPost(map[string]any{"name": "a", "type": "A", "content": "192.0.2.2"}) // a second value is fine
	expect(map[string]any{"name": "A.example.com.", "type": "A", "content": "192.0.2.1", "ttl": 300}, CodeIdenticalRecord)
	expect(map[string]any{"name": "a", "type": "CNAME", "content": "b.example.net"}, CodeCNAMEConflict)
	mustPost(map[string]any{"name": "c", "type": "CNAME", "content": "b.example.net"})
	expect(map[string]any{"name": "c", "type": "TXT", "content": "x"}, CodeCNAMEExists)
	expect(map[string]any{"name": "c", "type": "CNAME", "content": "other.example.net"}, CodeCNAMEConflict)
}

func TestListFiltersAndPaging(t *testing.T) {
	env := newEnv(t, Options{})
	ctx := context.Background()
	var recs []SeedRecord
	for i := 0; i < 12; i++ {
		recs = append(recs, SeedRecord{Name: string(rune('a'+i)) + ".svc", Type: "A", Content: "192.0.2.1"})
	}
	recs = append(recs, SeedRecord{Name: "a.svc", Type: "TXT", Content: "owner", Comment: "c1"})
	if _, err := env.srv.Seed(Seed{Zones: []SeedZone{{Name: "example.org", Records: recs}}}); err != nil {
		t.Fatal(err)
	}
	zid := env.srv.Dump()[1].ID // example.org sorts after example.com
	iter := env.client.DNS.Records.ListAutoPaging(ctx, dns.RecordListParams{ZoneID: cloudflare.F(zid), PerPage: cloudflare.F(5.0)})
	n := 0
	for iter.Next() {
		n++
	}
	if iter.Err() != nil || n != 13 {
		t.Fatalf("auto-paging saw %d records, err %v", n, iter.Err())
	}
	// 13 records at 5 per page: pages 1–3, and the SDK asks for page 4 and
	// stops on the empty answer.
	if c := env.srv.Counters().Calls[OpRecordsList]; c != 4 {
		t.Fatalf("list calls = %d, want 4", c)
	}
	page, err := env.client.DNS.Records.List(ctx, dns.RecordListParams{
		ZoneID: cloudflare.F(zid), Type: cloudflare.F(dns.RecordListParamsTypeTXT),
		Name: cloudflare.F(dns.RecordListParamsName{Exact: cloudflare.F("a.svc.example.org")}),
	})
	if err != nil || len(page.Result) != 1 || page.Result[0].Content != "owner" {
		t.Fatalf("name.exact+type filter: %+v %v", page, err)
	}
	page, err = env.client.DNS.Records.List(ctx, dns.RecordListParams{
		ZoneID: cloudflare.F(zid), Name: cloudflare.F(dns.RecordListParamsName{Contains: cloudflare.F("a.svc")}),
	})
	if err != nil || len(page.Result) != 2 {
		t.Fatalf("name.contains: %d results, %v", len(page.Result), err)
	}
	status, e := env.do(t, http.MethodGet, APIPrefix+"zones/"+zid+"/dns_records?search=x", nil)
	if status != 400 || e.code() != CodeInvalidQuery {
		t.Fatalf("unsupported query parameter: %d %s", status, e.raw)
	}
	status, e = env.do(t, http.MethodGet, APIPrefix+"zones/"+zid+"/dns_records?per_page=5&page=3", nil)
	if status != 200 || e.ResultInfo == nil || *e.ResultInfo != (resultInfo{Page: 3, PerPage: 5, Count: 3, TotalCount: 13, TotalPages: 3}) {
		t.Fatalf("result_info of the last page: %+v", e.ResultInfo)
	}
}
