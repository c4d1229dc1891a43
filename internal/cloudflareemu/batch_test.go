package cloudflareemu

import (
	"context"
	"net/http"
	"reflect"
	"strconv"
	"testing"

	cloudflare "github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/dns"
)

func seedRecords(t *testing.T, env *testEnv, recs ...SeedRecord) map[string]string {
	t.Helper()
	for _, r := range recs {
		raw := map[string]any{"name": r.Name, "type": r.Type, "content": r.Content}
		if status, e := env.do(t, http.MethodPost, APIPrefix+"zones/"+env.zoneID+"/dns_records", raw); status != 200 {
			t.Fatalf("seed %v: %s", r, e.raw)
		}
	}
	ids := map[string]string{}
	for _, r := range env.srv.Dump()[0].Records {
		ids[r.Type+" "+r.Name+" "+r.Content] = r.ID
	}
	return ids
}

func TestBatchOrderAndResult(t *testing.T) {
	env := newEnv(t, Options{})
	ids := seedRecords(t, env,
		SeedRecord{Name: "old", Type: "A", Content: "192.0.2.1"},
		SeedRecord{Name: "keep", Type: "A", Content: "192.0.2.2"},
		SeedRecord{Name: "put", Type: "TXT", Content: "v1"},
	)
	// The post re-creates the deleted record: legal only because deletes run
	// before posts. The patch turns keep into a proxied record.
	res, err := env.client.DNS.Records.Batch(context.Background(), dns.RecordBatchParams{
		ZoneID:  cloudflare.F(env.zoneID),
		Deletes: cloudflare.F([]dns.RecordBatchParamsDelete{{ID: cloudflare.F(ids["A old.example.com 192.0.2.1"])}}),
		Patches: cloudflare.F([]dns.BatchPatchUnionParam{dns.BatchPatchARecordParam{
			ID: cloudflare.F(ids["A keep.example.com 192.0.2.2"]), ARecordParam: dns.ARecordParam{Proxied: cloudflare.F(true)}}}),
		Puts: cloudflare.F([]dns.BatchPutUnionParam{dns.BatchPutTXTRecordParam{
			ID: cloudflare.F(ids["TXT put.example.com v1"]),
			TXTRecordParam: dns.TXTRecordParam{Name: cloudflare.F("put.example.com"), Type: cloudflare.F(dns.TXTRecordTypeTXT),
				TTL: cloudflare.F(dns.TTL(3600)), Content: cloudflare.F("v2")}}}),
		Posts: cloudflare.F([]dns.RecordBatchParamsPostUnion{dns.RecordBatchParamsPost{
			Name: cloudflare.F("old.example.com"), Type: cloudflare.F(dns.RecordBatchParamsPostsTypeA),
			TTL: cloudflare.F(dns.TTL(1)), Content: cloudflare.F("192.0.2.1")}}),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Deletes) != 1 || len(res.Patches) != 1 || len(res.Puts) != 1 || len(res.Posts) != 1 {
		t.Fatalf("batch result sizes: %+v", res)
	}
	if !res.Patches[0].Proxied || res.Puts[0].Content != "v2" || res.Puts[0].TTL != 3600 || res.Posts[0].ID == ids["A old.example.com 192.0.2.1"] {
		t.Fatalf("batch results: %+v", res)
	}
	if n := len(env.srv.Dump()[0].Records); n != 3 {
		t.Fatalf("records after batch = %d, want 3", n)
	}
	if env.srv.Counters().Calls[OpRecordsBatch] != 1 {
		t.Fatal("batch counter")
	}
}

func TestBatchIsAllOrNothing(t *testing.T) {
	env := newEnv(t, Options{})
	ids := seedRecords(t, env, SeedRecord{Name: "x", Type: "A", Content: "192.0.2.1"})
	before := env.srv.Dump()
	body := map[string]any{
		"deletes": []map[string]any{{"id": ids["A x.example.com 192.0.2.1"]}},
		"posts": []map[string]any{
			{"name": "new1", "type": "A", "content": "192.0.2.9", "ttl": 1},
			{"name": "new2", "type": "A", "content": "192.0.2.9", "ttl": 1},
			{"name": "new1", "type": "A", "content": "192.0.2.9", "ttl": 1}, // identical to posts[0]
		},
	}
	status, e := env.do(t, http.MethodPost, APIPrefix+"zones/"+env.zoneID+"/dns_records/batch", body)
	if status != 400 || e.code() != CodeIdenticalRecord || e.Errors[0].Source == nil || e.Errors[0].Source.Pointer != "/posts/2" {
		t.Fatalf("want 400 %d at /posts/2, got %d %s", CodeIdenticalRecord, status, e.raw)
	}
	if got := env.srv.Dump(); len(got[0].Records) != 1 || !reflect.DeepEqual(got, before) {
		t.Fatalf("a failed batch changed the zone: %+v", got)
	}
	// A delete of an unknown id fails the batch with 81044.
	body = map[string]any{"deletes": []map[string]any{{"id": newID()}}}
	if status, e := env.do(t, http.MethodPost, APIPrefix+"zones/"+env.zoneID+"/dns_records/batch", body); status != 404 || e.code() != CodeRecordNotFound {
		t.Fatalf("unknown delete id: %d %s", status, e.raw)
	}
}

func TestBatchLimitPerPlan(t *testing.T) {
	env := newEnv(t, Options{})
	var posts []map[string]any
	for i := 0; i < 201; i++ {
		posts = append(posts, map[string]any{"name": "n" + strconv.Itoa(i), "type": "TXT", "content": "x"})
	}
	status, e := env.do(t, http.MethodPost, APIPrefix+"zones/"+env.zoneID+"/dns_records/batch", map[string]any{"posts": posts})
	if status != 400 || e.code() != CodeBatchTooLarge {
		t.Fatalf("201 changes on Free: %d %s", status, e.raw)
	}
	status, e = env.do(t, http.MethodPost, APIPrefix+"zones/"+env.zoneID+"/dns_records/batch", map[string]any{"posts": posts[:200]})
	if status != 200 || !e.Success {
		t.Fatalf("200 changes on Free: %d %s", status, e.raw)
	}
}
