package cloudflareemu

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	cfv5 "github.com/cloudflare/cloudflare-go/v5"
	dnsv5 "github.com/cloudflare/cloudflare-go/v5/dns"
	optionv5 "github.com/cloudflare/cloudflare-go/v5/option"
	zonesv5 "github.com/cloudflare/cloudflare-go/v5/zones"
)

// TestFidelityV5ListCreateBatch drives list, create and batch through
// cloudflare-go v5.1.0 (what external-dns v0.21.0 uses) and checks that SDK
// too finds no unknown, ill-typed or missing field.
func TestFidelityV5ListCreateBatch(t *testing.T) {
	srv := New(Options{})
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	seeded, err := srv.Seed(Seed{Zones: []SeedZone{{Name: "example.com"}}})
	if err != nil {
		t.Fatal(err)
	}
	client := cfv5.NewClient(optionv5.WithBaseURL(hs.URL+APIPrefix), optionv5.WithAPIToken("x"), optionv5.WithMaxRetries(0))
	ctx := context.Background()
	zid := cfv5.F(seeded[0].ID)
	check := func(what string, v any) {
		t.Helper()
		if p := sdkProblems(v); len(p) > 0 {
			t.Errorf("%s: cloudflare-go v5 reports:\n  %s", what, strings.Join(p, "\n  "))
		}
	}
	bodies := []dnsv5.RecordNewParamsBodyUnion{
		dnsv5.ARecordParam{Name: cfv5.F("a"), Type: cfv5.F(dnsv5.ARecordTypeA), TTL: cfv5.F(dnsv5.TTL(1)), Content: cfv5.F("192.0.2.1"),
			Proxied: cfv5.F(true), Comment: cfv5.F("web"), Tags: cfv5.F([]dnsv5.RecordTagsParam{"team:web"})},
		dnsv5.CNAMERecordParam{Name: cfv5.F("www"), Type: cfv5.F(dnsv5.CNAMERecordTypeCNAME), TTL: cfv5.F(dnsv5.TTL(300)), Content: cfv5.F("a.example.com")},
		dnsv5.TXTRecordParam{Name: cfv5.F("a"), Type: cfv5.F(dnsv5.TXTRecordTypeTXT), TTL: cfv5.F(dnsv5.TTL(1)), Content: cfv5.F(`"owner"`)},
		dnsv5.MXRecordParam{Name: cfv5.F("@"), Type: cfv5.F(dnsv5.MXRecordTypeMX), TTL: cfv5.F(dnsv5.TTL(1)), Content: cfv5.F("mx.example.net"), Priority: cfv5.F(10.0)},
		dnsv5.SRVRecordParam{Name: cfv5.F("_sip._tcp"), Type: cfv5.F(dnsv5.SRVRecordTypeSRV), TTL: cfv5.F(dnsv5.TTL(1)),
			Data: cfv5.F(dnsv5.SRVRecordDataParam{Priority: cfv5.F(1.0), Weight: cfv5.F(2.0), Port: cfv5.F(5060.0), Target: cfv5.F("sip.example.net")})},
		dnsv5.CAARecordParam{Name: cfv5.F("@"), Type: cfv5.F(dnsv5.CAARecordTypeCAA), TTL: cfv5.F(dnsv5.TTL(1)),
			Data: cfv5.F(dnsv5.CAARecordDataParam{Flags: cfv5.F(0.0), Tag: cfv5.F("issue"), Value: cfv5.F("letsencrypt.org")})},
	}
	var first *dnsv5.RecordResponse
	for _, b := range bodies {
		r, err := client.DNS.Records.New(ctx, dnsv5.RecordNewParams{ZoneID: zid, Body: b})
		if err != nil {
			t.Fatalf("new %T: %v", b, err)
		}
		// Only the flat RecordResponse is checked: v5 registers the record
		// union without a discriminator, so every record decodes as the A
		// variant, which then reports MX's priority or SRV's data as unknown.
		check("new "+string(r.Type), r)
		if first == nil {
			first = r
		}
	}
	iter := client.DNS.Records.ListAutoPaging(ctx, dnsv5.RecordListParams{ZoneID: zid, PerPage: cfv5.F(5.0)})
	n := 0
	for iter.Next() {
		check("list", iter.Current())
		n++
	}
	if iter.Err() != nil || n != len(bodies) {
		t.Fatalf("list: %d of %d, %v", n, len(bodies), iter.Err())
	}
	res, err := client.DNS.Records.Batch(ctx, dnsv5.RecordBatchParams{ZoneID: zid,
		Deletes: cfv5.F([]dnsv5.RecordBatchParamsDelete{{ID: cfv5.F(first.ID)}}),
		Posts: cfv5.F([]dnsv5.RecordBatchParamsPostUnion{dnsv5.ARecordParam{Name: cfv5.F("b"), Type: cfv5.F(dnsv5.ARecordTypeA),
			TTL: cfv5.F(dnsv5.TTL(60)), Content: cfv5.F("192.0.2.2")}})})
	if err != nil {
		t.Fatal(err)
	}
	check("batch", res)
	if len(res.Deletes) != 1 || len(res.Posts) != 1 || res.Posts[0].Name != "b.example.com" || res.Posts[0].TTL != 60 {
		t.Fatalf("batch result: %+v", res)
	}
	zl, err := client.Zones.List(ctx, zonesv5.ZoneListParams{})
	if err != nil || len(zl.Result) != 1 {
		t.Fatalf("zones list: %v", err)
	}
	check("zones list", zl.Result)
}
