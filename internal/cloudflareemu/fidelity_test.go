package cloudflareemu

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"reflect"
	"sort"
	"strings"
	"testing"

	cloudflare "github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/addressing"
	"github.com/cloudflare/cloudflare-go/v7/custom_hostnames"
	"github.com/cloudflare/cloudflare-go/v7/dns"
	"github.com/cloudflare/cloudflare-go/v7/option"
	"github.com/cloudflare/cloudflare-go/v7/zones"
)

// TestSDKProblemsDetectsDrift proves the checker can fail: an unknown key, a
// value of the wrong JSON type and a missing required field are reported.
func TestSDKProblemsDetectsDrift(t *testing.T) {
	var rec dns.RecordResponse
	raw := `{"id":"x","name":"a.example.com","type":"A","content":"192.0.2.1","ttl":"soon","proxied":false,
		"proxiable":true,"settings":{},"meta":{},"comment":null,"tags":[],"created_on":"2026-01-01T00:00:00Z",
		"zone_name":"example.com"}`
	if err := json.Unmarshal([]byte(raw), &rec); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(sdkProblems(rec.AsUnion()), "\n")
	for _, want := range []string{`"zone_name" unknown`, `.ttl: value "soon"`, `.modified_on: required field missing`} {
		if !strings.Contains(got, want) {
			t.Errorf("checker did not report %s; got:\n%s", want, got)
		}
	}
}

// fidelityEnv is an emulator on a Pro zone and a v7 client whose response
// bodies are recorded.
type fidelityEnv struct {
	*testEnv
	bodies *bodyRecorder
}

func newFidelityEnv(t *testing.T) *fidelityEnv {
	srv := New(Options{})
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	seeded, err := srv.Seed(Seed{Zones: []SeedZone{{Name: "example.com", Plan: "pro"}}})
	if err != nil {
		t.Fatal(err)
	}
	rec := &bodyRecorder{}
	client := cloudflare.NewClient(option.WithBaseURL(hs.URL+APIPrefix), option.WithAPIToken("x"),
		option.WithMaxRetries(0), option.WithMiddleware(rec.middleware))
	return &fidelityEnv{testEnv: &testEnv{srv: srv, http: hs, client: client, zoneID: seeded[0].ID}, bodies: rec}
}

// checkEnvelope decodes the last response body into env (an SDK envelope
// type) and checks it, so the envelope's own fields are covered too.
func (f *fidelityEnv) checkEnvelope(t *testing.T, what string, env any) {
	t.Helper()
	last := f.bodies.last()
	if err := json.Unmarshal(last.body, env); err != nil {
		t.Fatalf("%s: envelope does not decode into %T: %v", what, env, err)
	}
	f.check(t, what+" envelope", env)
}

func (f *fidelityEnv) check(t *testing.T, what string, v any) {
	t.Helper()
	if p := sdkProblems(v); len(p) > 0 {
		t.Errorf("%s: the SDK reports:\n  %s", what, strings.Join(p, "\n  "))
	}
}

// checkRecord checks a decoded record twice (the flat RecordResponse and
// the per-type union variant) and compares its values with the stored record.
func (f *fidelityEnv) checkRecord(t *testing.T, what string, r dns.RecordResponse) {
	t.Helper()
	f.check(t, what, r)
	f.check(t, what+" (union)", r.AsUnion())
	var stored *RecordDump
	for _, z := range f.srv.Dump() {
		for i := range z.Records {
			if z.Records[i].ID == r.ID {
				stored = &z.Records[i]
			}
		}
	}
	if stored == nil {
		t.Errorf("%s: record %s is not in the emulator", what, r.ID)
		return
	}
	got := RecordDump{ID: r.ID, Name: r.Name, Type: string(r.Type), Content: r.Content, TTL: int(r.TTL), Proxied: r.Proxied, Comment: r.Comment}
	if tags, ok := r.Tags.([]string); ok && len(tags) > 0 {
		got.Tags = append([]string(nil), tags...)
		sort.Strings(got.Tags) // the dump sorts tags
	}
	if r.Type == dns.RecordResponseTypeMX {
		p := int(r.Priority)
		got.Priority = &p
	}
	if r.Data != nil {
		got.Data = sdkDataMap(t, r.Data)
	}
	if settings := sdkSettingsMap(r.Settings); len(settings) > 0 {
		got.Settings = settings
	}
	want := *stored
	if !reflect.DeepEqual(normalizeDump(got), normalizeDump(want)) {
		t.Errorf("%s: SDK decoded\n  %+v\nemulator stored\n  %+v", what, got, want)
	}
}

// sdkDataMap turns SRVRecordData, CAARecordData or TLSARecordData into the
// dump's map form through their JSON.
func sdkDataMap(t *testing.T, d any) map[string]any {
	switch v := d.(type) {
	case dns.SRVRecordData:
		return map[string]any{"priority": v.Priority, "weight": v.Weight, "port": v.Port, "target": v.Target}
	case dns.CAARecordData:
		return map[string]any{"flags": v.Flags, "tag": v.Tag, "value": v.Value}
	case dns.TLSARecordData:
		return map[string]any{"usage": v.Usage, "selector": v.Selector, "matching_type": v.MatchingType, "certificate": v.Certificate}
	}
	t.Errorf("unexpected data type %T", d)
	return nil
}

// sdkSettingsMap reads the settings the SDK decoded, keeping only the keys
// present in the JSON (the SDK fills absent booleans with false).
func sdkSettingsMap(s any) map[string]bool {
	out := map[string]bool{}
	v := reflect.ValueOf(s)
	if !v.IsValid() || v.Kind() != reflect.Struct {
		return out
	}
	meta := v.FieldByName("JSON")
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		name, _, _ := sdkTag(f)
		if name == "" || f.Type.Kind() != reflect.Bool {
			continue
		}
		if fm := meta.FieldByName(f.Name); fm.IsValid() && !fm.MethodByName("IsMissing").Call(nil)[0].Bool() {
			out[name] = v.Field(i).Bool()
		}
	}
	return out
}

// normalizeDump makes numbers comparable (float64 from JSON and the SDK).
func normalizeDump(d RecordDump) string {
	b, _ := json.Marshal(d)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	b, _ = json.Marshal(m)
	return string(b)
}

// allTypeParams are one create body per emulated type, with every optional
// field the emulator accepts for it.
func allTypeParams() []dns.RecordNewParamsBodyUnion {
	var out []dns.RecordNewParamsBodyUnion
	for _, p := range allTypeParamsAny() {
		out = append(out, p.(dns.RecordNewParamsBodyUnion))
	}
	return out
}

// allTypeParamsAny are the same bodies untyped: each per-type param struct
// is also a batch post.
func allTypeParamsAny() []any {
	return []any{
		dns.ARecordParam{Name: cloudflare.F("a"), Type: cloudflare.F(dns.ARecordTypeA), TTL: cloudflare.F(dns.TTL(1)), Content: cloudflare.F("192.0.2.1"),
			Proxied: cloudflare.F(true), Comment: cloudflare.F("web"), Tags: cloudflare.F([]dns.RecordTagsParam{"team:web", "env:prod"}),
			Settings: cloudflare.F(dns.ARecordSettingsParam{IPV4Only: cloudflare.F(true)})},
		dns.AAAARecordParam{Name: cloudflare.F("a"), Type: cloudflare.F(dns.AAAARecordTypeAAAA), TTL: cloudflare.F(dns.TTL(300)), Content: cloudflare.F("2001:db8::1")},
		dns.CNAMERecordParam{Name: cloudflare.F("www"), Type: cloudflare.F(dns.CNAMERecordTypeCNAME), TTL: cloudflare.F(dns.TTL(3600)), Content: cloudflare.F("a.example.com"),
			Settings: cloudflare.F(dns.CNAMERecordSettingsParam{FlattenCNAME: cloudflare.F(true)})},
		dns.TXTRecordParam{Name: cloudflare.F("a"), Type: cloudflare.F(dns.TXTRecordTypeTXT), TTL: cloudflare.F(dns.TTL(60)), Content: cloudflare.F(`"heritage=external-dns,external-dns/owner=default"`)},
		dns.MXRecordParam{Name: cloudflare.F("@"), Type: cloudflare.F(dns.MXRecordTypeMX), TTL: cloudflare.F(dns.TTL(1)), Content: cloudflare.F("mx.example.net"), Priority: cloudflare.F(10.0)},
		dns.NSRecordParam{Name: cloudflare.F("sub"), Type: cloudflare.F(dns.NSRecordTypeNS), TTL: cloudflare.F(dns.TTL(86400)), Content: cloudflare.F("ns1.example.net")},
		dns.SRVRecordParam{Name: cloudflare.F("_sip._tcp"), Type: cloudflare.F(dns.SRVRecordTypeSRV), TTL: cloudflare.F(dns.TTL(1)),
			Data: cloudflare.F(dns.SRVRecordDataParam{Priority: cloudflare.F(10.0), Weight: cloudflare.F(5.0), Port: cloudflare.F(5060.0), Target: cloudflare.F("sip.example.net")})},
		dns.CAARecordParam{Name: cloudflare.F("@"), Type: cloudflare.F(dns.CAARecordTypeCAA), TTL: cloudflare.F(dns.TTL(1)),
			Data: cloudflare.F(dns.CAARecordDataParam{Flags: cloudflare.F(0.0), Tag: cloudflare.F("issue"), Value: cloudflare.F("letsencrypt.org")})},
		dns.PTRRecordParam{Name: cloudflare.F("1.2"), Type: cloudflare.F(dns.PTRRecordTypePTR), TTL: cloudflare.F(dns.TTL(1)), Content: cloudflare.F("host.example.com")},
		dns.TLSARecordParam{Name: cloudflare.F("_443._tcp.a"), Type: cloudflare.F(dns.TLSARecordTypeTLSA), TTL: cloudflare.F(dns.TTL(1)),
			Data: cloudflare.F(dns.TLSARecordDataParam{Usage: cloudflare.F(3.0), Selector: cloudflare.F(1.0), MatchingType: cloudflare.F(1.0), Certificate: cloudflare.F("abcdef0123")})},
	}
}

// TestFidelityV7Records drives every dns_records operation through
// cloudflare-go v7.7.0 (what external-dns v0.23.0 uses) for every emulated
// type and checks that the SDK finds no unknown, ill-typed or missing field
// and decodes what the emulator stored.
func TestFidelityV7Records(t *testing.T) {
	f := newFidelityEnv(t)
	ctx := context.Background()
	zid := cloudflare.F(f.zoneID)
	var created []*dns.RecordResponse
	for _, body := range allTypeParams() {
		r, err := f.client.DNS.Records.New(ctx, dns.RecordNewParams{ZoneID: zid, Body: body})
		if err != nil {
			t.Fatalf("new %T: %v", body, err)
		}
		f.checkRecord(t, "new "+string(r.Type), *r)
		f.checkEnvelope(t, "new "+string(r.Type), &dns.RecordNewResponseEnvelope{})
		created = append(created, r)
	}
	for _, r := range created {
		got, err := f.client.DNS.Records.Get(ctx, r.ID, dns.RecordGetParams{ZoneID: zid})
		if err != nil {
			t.Fatal(err)
		}
		f.checkRecord(t, "get "+string(r.Type), *got)
		f.checkEnvelope(t, "get "+string(r.Type), &dns.RecordGetResponseEnvelope{})
	}
	iter := f.client.DNS.Records.ListAutoPaging(ctx, dns.RecordListParams{ZoneID: zid, PerPage: cloudflare.F(5.0)})
	n := 0
	for iter.Next() {
		f.checkRecord(t, "list", iter.Current())
		n++
	}
	if iter.Err() != nil || n != len(created) {
		t.Fatalf("list: %d of %d, %v", n, len(created), iter.Err())
	}
	a := created[0]
	put, err := f.client.DNS.Records.Update(ctx, a.ID, dns.RecordUpdateParams{ZoneID: zid, Body: dns.ARecordParam{
		Name: cloudflare.F("a.example.com"), Type: cloudflare.F(dns.ARecordTypeA), TTL: cloudflare.F(dns.TTL(600)), Content: cloudflare.F("192.0.2.9"),
		Comment: cloudflare.F("put"), Tags: cloudflare.F([]dns.RecordTagsParam{"team:dns"})}})
	if err != nil {
		t.Fatal(err)
	}
	f.checkRecord(t, "update", *put)
	f.checkEnvelope(t, "update", &dns.RecordUpdateResponseEnvelope{})
	edit, err := f.client.DNS.Records.Edit(ctx, a.ID, dns.RecordEditParams{ZoneID: zid, Body: dns.ARecordParam{Comment: cloudflare.F("edited")}})
	if err != nil {
		t.Fatal(err)
	}
	if edit.Comment != "edited" || edit.Content != "192.0.2.9" || edit.CommentModifiedOn.IsZero() {
		t.Errorf("edit: %+v", edit)
	}
	f.checkRecord(t, "edit", *edit)
	f.checkEnvelope(t, "edit", &dns.RecordEditResponseEnvelope{})
	del, err := f.client.DNS.Records.Delete(ctx, a.ID, dns.RecordDeleteParams{ZoneID: zid})
	if err != nil || del.ID != a.ID {
		t.Fatalf("delete: %+v %v", del, err)
	}
	// No envelope check here: the SDK's RecordDeleteResponseEnvelope declares
	// only result, though every Cloudflare answer carries success, errors and
	// messages.
	f.check(t, "delete", del)
}

// TestFidelityV7Batch checks the batch result and the error a refused batch
// gets, as the SDK decodes them.
func TestFidelityV7Batch(t *testing.T) {
	f := newFidelityEnv(t)
	ctx := context.Background()
	zid := cloudflare.F(f.zoneID)
	first, err := f.client.DNS.Records.New(ctx, dns.RecordNewParams{ZoneID: zid, Body: dns.TXTRecordParam{
		Name: cloudflare.F("t"), Type: cloudflare.F(dns.TXTRecordTypeTXT), TTL: cloudflare.F(dns.TTL(1)), Content: cloudflare.F("one")}})
	if err != nil {
		t.Fatal(err)
	}
	second, err := f.client.DNS.Records.New(ctx, dns.RecordNewParams{ZoneID: zid, Body: dns.TXTRecordParam{
		Name: cloudflare.F("u"), Type: cloudflare.F(dns.TXTRecordTypeTXT), TTL: cloudflare.F(dns.TTL(1)), Content: cloudflare.F("two")}})
	if err != nil {
		t.Fatal(err)
	}
	var posts []dns.RecordBatchParamsPostUnion
	for _, p := range allTypeParamsAny() {
		posts = append(posts, p.(dns.RecordBatchParamsPostUnion))
	}
	res, err := f.client.DNS.Records.Batch(ctx, dns.RecordBatchParams{ZoneID: zid,
		Deletes: cloudflare.F([]dns.RecordBatchParamsDelete{{ID: cloudflare.F(first.ID)}}),
		Patches: cloudflare.F([]dns.BatchPatchUnionParam{dns.BatchPatchTXTRecordParam{ID: cloudflare.F(second.ID),
			TXTRecordParam: dns.TXTRecordParam{Comment: cloudflare.F("patched")}}}),
		Posts: cloudflare.F(posts)})
	if err != nil {
		t.Fatal(err)
	}
	f.check(t, "batch", res)
	f.checkEnvelope(t, "batch", &dns.RecordBatchResponseEnvelope{})
	for i, r := range append(res.Patches, res.Posts...) {
		f.checkRecord(t, fmt.Sprintf("batch item %d", i), r)
	}
	if len(res.Deletes) != 1 || res.Deletes[0].ID != first.ID {
		t.Errorf("batch deletes: %+v", res.Deletes)
	}
	// A refused batch: the SDK's error carries the code and the pointer.
	_, err = f.client.DNS.Records.Batch(ctx, dns.RecordBatchParams{ZoneID: zid, Posts: cloudflare.F(posts[:1])})
	var apiErr *cloudflare.Error
	if !errors.As(err, &apiErr) || len(apiErr.Errors) != 1 || apiErr.Errors[0].Code != CodeIdenticalRecord || apiErr.Errors[0].Source.Pointer != "/posts/0" {
		t.Fatalf("refused batch: %v", err)
	}
	f.check(t, "batch error", apiErr.Errors)
}

// TestFidelityV7ZonesAndHostnames covers zones, custom_hostnames and
// regional_hostnames.
func TestFidelityV7ZonesAndHostnames(t *testing.T) {
	f := newFidelityEnv(t)
	ctx := context.Background()
	zid := cloudflare.F(f.zoneID)
	page, err := f.client.Zones.List(ctx, zones.ZoneListParams{})
	if err != nil || len(page.Result) != 1 {
		t.Fatalf("zones list: %v", err)
	}
	f.check(t, "zones list", page.Result)
	z, err := f.client.Zones.Get(ctx, zones.ZoneGetParams{ZoneID: zid})
	if err != nil {
		t.Fatal(err)
	}
	f.check(t, "zones get", z)
	f.checkEnvelope(t, "zones get", &zones.ZoneGetResponseEnvelope{})
	if z.Name != "example.com" || z.ID != f.zoneID || !z.Plan.IsSubscribed || z.Account.ID != DefaultAccountID {
		t.Errorf("zone: %+v", z)
	}

	ch, err := f.client.CustomHostnames.New(ctx, custom_hostnames.CustomHostnameNewParams{ZoneID: zid, Hostname: cloudflare.F("shop.customer.net"),
		SSL: cloudflare.F(custom_hostnames.CustomHostnameNewParamsSSL{Method: cloudflare.F(custom_hostnames.DCVMethodTXT)})},
		option.WithJSONSet("custom_origin_server", "origin.example.com"))
	if err != nil {
		t.Fatal(err)
	}
	f.check(t, "custom hostname new", ch)
	f.checkEnvelope(t, "custom hostname new", &custom_hostnames.CustomHostnameNewResponseEnvelope{})
	got, err := f.client.CustomHostnames.Get(ctx, ch.ID, custom_hostnames.CustomHostnameGetParams{ZoneID: zid})
	if err != nil || got.CustomOriginServer != "origin.example.com" || got.SSL.Method != custom_hostnames.DCVMethodTXT {
		t.Fatalf("custom hostname get: %+v %v", got, err)
	}
	f.check(t, "custom hostname get", got)
	f.checkEnvelope(t, "custom hostname get", &custom_hostnames.CustomHostnameGetResponseEnvelope{})
	list, err := f.client.CustomHostnames.List(ctx, custom_hostnames.CustomHostnameListParams{ZoneID: zid})
	if err != nil || len(list.Result) != 1 {
		t.Fatalf("custom hostname list: %v", err)
	}
	f.check(t, "custom hostname list", list.Result)
	del, err := f.client.CustomHostnames.Delete(ctx, ch.ID, custom_hostnames.CustomHostnameDeleteParams{ZoneID: zid})
	if err != nil || del.ID != ch.ID {
		t.Fatalf("custom hostname delete: %+v %v", del, err)
	}
	f.check(t, "custom hostname delete", del)

	rh := f.client.Addressing.RegionalHostnames
	nr, err := rh.New(ctx, addressing.RegionalHostnameNewParams{ZoneID: zid, Hostname: cloudflare.F("eu.example.com"), RegionKey: cloudflare.F("eu")})
	if err != nil {
		t.Fatal(err)
	}
	f.check(t, "regional new", nr)
	f.checkEnvelope(t, "regional new", &addressing.RegionalHostnameNewResponseEnvelope{})
	gr, err := rh.Get(ctx, "eu.example.com", addressing.RegionalHostnameGetParams{ZoneID: zid})
	if err != nil {
		t.Fatal(err)
	}
	f.check(t, "regional get", gr)
	er, err := rh.Edit(ctx, "eu.example.com", addressing.RegionalHostnameEditParams{ZoneID: zid, RegionKey: cloudflare.F("us")})
	if err != nil || er.RegionKey != "us" {
		t.Fatal(err)
	}
	f.check(t, "regional edit", er)
	lr, err := rh.List(ctx, addressing.RegionalHostnameListParams{ZoneID: zid})
	if err != nil || len(lr.Result) != 1 {
		t.Fatalf("regional list: %v", err)
	}
	f.check(t, "regional list", lr.Result)
	dr, err := rh.Delete(ctx, "eu.example.com", addressing.RegionalHostnameDeleteParams{ZoneID: zid})
	if err != nil {
		t.Fatal(err)
	}
	f.check(t, "regional delete", dr)
}
