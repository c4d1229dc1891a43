package azurednsemu

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/dns/armdns"
)

// responseError returns the ARM error the SDK produced, or fails.
func responseError(t *testing.T, err error, status int, code string) {
	t.Helper()
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		t.Fatalf("want an ARM error %d %s, got %v", status, code, err)
	}
	if re.StatusCode != status || re.ErrorCode != code {
		t.Fatalf("got %d %s, want %d %s (%v)", re.StatusCode, re.ErrorCode, status, code, err)
	}
}

// TestPublicDNSThroughTheSDK drives every emulated Azure DNS operation
// through armdns with a client-secret login (instance discovery, OpenID
// configuration and token from the emulator over TLS), checks the decoded
// values, and checks every raw answer against the swagger definitions.
func TestPublicDNSThroughTheSDK(t *testing.T) {
	f := startTLS(t, Options{PageSize: 2})
	ctx := context.Background()
	var zones []SeedZone
	for _, n := range []string{"a.example", "b.example", "c.example"} {
		zones = append(zones, SeedZone{Name: n})
	}
	mustSeed(t, f.srv, Seed{Subscriptions: []SeedSubscription{{ID: testSub, ResourceGroups: []SeedResourceGroup{
		{Name: testRG, Zones: append(zones, SeedZone{Name: "example.com", Tags: map[string]string{"team": "dns"}})},
		{Name: "rg-other", Zones: []SeedZone{{Name: "other.example"}}},
	}}}})
	zc, err := armdns.NewZonesClient(testSub, f.cred, f.armOptions(0))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := armdns.NewRecordSetsClient(testSub, f.cred, f.armOptions(0))
	if err != nil {
		t.Fatal(err)
	}

	// Zones: by resource group (two pages of 2), by subscription, get.
	var names []string
	pages := 0
	for p := zc.NewListByResourceGroupPager(testRG, nil); p.More(); {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, z := range page.Value {
			names = append(names, *z.Name)
		}
	}
	if want := []string{"a.example", "b.example", "c.example", "example.com"}; !reflect.DeepEqual(names, want) || pages != 2 {
		t.Fatalf("zones by resource group %v in %d pages, want %v in 2", names, pages, want)
	}
	n := 0
	for p := zc.NewListPager(nil); p.More(); {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n += len(page.Value)
	}
	if n != 5 {
		t.Fatalf("zones in the subscription: %d, want 5", n)
	}
	zone, err := zc.Get(ctx, testRG, "example.com", nil)
	if err != nil {
		t.Fatal(err)
	}
	if *zone.Type != "Microsoft.Network/dnszones" || *zone.Properties.NumberOfRecordSets != 2 || len(zone.Properties.NameServers) != 4 ||
		*zone.Tags["team"] != "dns" || *zone.Properties.ZoneType != armdns.ZoneTypePublic || zone.Etag == nil {
		t.Fatalf("zone %+v", zone)
	}
	_, err = zc.Get(ctx, testRG, "missing.example", nil)
	responseError(t, err, http.StatusNotFound, "ResourceNotFound")
	_, err = zc.Get(ctx, "rg-missing", "example.com", nil)
	responseError(t, err, http.StatusNotFound, "ResourceGroupNotFound")

	// Every record type, created (201) then read back.
	sets := map[armdns.RecordType]armdns.RecordSetProperties{
		armdns.RecordTypeA:     {TTL: ptr[int64](300), ARecords: []*armdns.ARecord{{IPv4Address: ptr("192.0.2.1")}, {IPv4Address: ptr("192.0.2.2")}}, Metadata: map[string]*string{"owner": ptr("zk")}},
		armdns.RecordTypeAAAA:  {TTL: ptr[int64](300), AaaaRecords: []*armdns.AaaaRecord{{IPv6Address: ptr("2001:db8::1")}}},
		armdns.RecordTypeCAA:   {TTL: ptr[int64](300), CaaRecords: []*armdns.CaaRecord{{Flags: ptr[int32](0), Tag: ptr("issue"), Value: ptr("ca.example")}}},
		armdns.RecordTypeMX:    {TTL: ptr[int64](300), MxRecords: []*armdns.MxRecord{{Preference: ptr[int32](10), Exchange: ptr("mail.example.com")}}},
		armdns.RecordTypeNS:    {TTL: ptr[int64](300), NsRecords: []*armdns.NsRecord{{Nsdname: ptr("ns.other.example")}}},
		armdns.RecordTypePTR:   {TTL: ptr[int64](300), PtrRecords: []*armdns.PtrRecord{{Ptrdname: ptr("host.example.com")}}},
		armdns.RecordTypeSRV:   {TTL: ptr[int64](300), SrvRecords: []*armdns.SrvRecord{{Priority: ptr[int32](1), Weight: ptr[int32](2), Port: ptr[int32](443), Target: ptr("t.example.com")}}},
		armdns.RecordTypeTXT:   {TTL: ptr[int64](300), TxtRecords: []*armdns.TxtRecord{{Value: []*string{ptr("heritage=external-dns"), ptr(",part2")}}}},
		armdns.RecordTypeCNAME: {TTL: ptr[int64](60), CnameRecord: &armdns.CnameRecord{Cname: ptr("www.example.com")}},
	}
	for typ, props := range sets {
		name := "www"
		if typ == armdns.RecordTypeCNAME {
			name = "alias"
		}
		got, err := rc.CreateOrUpdate(ctx, testRG, "example.com", name, typ, armdns.RecordSet{Properties: &props}, nil)
		if err != nil {
			t.Fatalf("create %s: %v", typ, err)
		}
		want := props
		want.Fqdn, want.ProvisioningState = ptr(name+".example.com."), ptr("Succeeded")
		if !reflect.DeepEqual(*got.Properties, want) || *got.Type != "Microsoft.Network/dnszones/"+string(typ) || *got.Name != name ||
			*got.ID != "/subscriptions/"+testSub+"/resourceGroups/"+testRG+"/providers/Microsoft.Network/dnszones/example.com/"+string(typ)+"/"+name {
			t.Fatalf("create %s: got %+v", typ, got.RecordSet)
		}
		read, err := rc.Get(ctx, testRG, "example.com", name, typ, nil)
		if err != nil || !reflect.DeepEqual(read.RecordSet, got.RecordSet) {
			t.Fatalf("get %s: %+v (%v), want %+v", typ, read.RecordSet, err, got.RecordSet)
		}
	}

	// Replace (200), etag preconditions, PATCH.
	cur, err := rc.Get(ctx, testRG, "example.com", "www", armdns.RecordTypeA, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := armdns.RecordSet{Properties: &armdns.RecordSetProperties{TTL: ptr[int64](120), ARecords: []*armdns.ARecord{{IPv4Address: ptr("192.0.2.9")}}}}
	_, err = rc.CreateOrUpdate(ctx, testRG, "example.com", "www", armdns.RecordTypeA, a, &armdns.RecordSetsClientCreateOrUpdateOptions{IfNoneMatch: ptr("*")})
	responseError(t, err, http.StatusPreconditionFailed, "PreconditionFailed")
	_, err = rc.CreateOrUpdate(ctx, testRG, "example.com", "www", armdns.RecordTypeA, a, &armdns.RecordSetsClientCreateOrUpdateOptions{IfMatch: ptr("stale")})
	responseError(t, err, http.StatusPreconditionFailed, "PreconditionFailed")
	replaced, err := rc.CreateOrUpdate(ctx, testRG, "example.com", "www", armdns.RecordTypeA, a, &armdns.RecordSetsClientCreateOrUpdateOptions{IfMatch: cur.Etag})
	if err != nil || *replaced.Etag == *cur.Etag || *replaced.Properties.TTL != 120 || len(replaced.Properties.ARecords) != 1 || replaced.Properties.Metadata != nil {
		t.Fatalf("replace with If-Match: %+v (%v)", replaced.RecordSet, err)
	}
	patched, err := rc.Update(ctx, testRG, "example.com", "www", armdns.RecordTypeA,
		armdns.RecordSet{Properties: &armdns.RecordSetProperties{Metadata: map[string]*string{"k": ptr("v")}}}, &armdns.RecordSetsClientUpdateOptions{IfMatch: replaced.Etag})
	if err != nil || *patched.Properties.TTL != 120 || *patched.Properties.ARecords[0].IPv4Address != "192.0.2.9" || *patched.Properties.Metadata["k"] != "v" {
		t.Fatalf("patch: %+v (%v)", patched.RecordSet, err)
	}
	_, err = rc.Update(ctx, testRG, "example.com", "nope", armdns.RecordTypeA, a, nil)
	responseError(t, err, http.StatusNotFound, "NotFound")
	_, err = rc.CreateOrUpdate(ctx, testRG, "example.com", "alias", armdns.RecordTypeA, a, nil)
	responseError(t, err, http.StatusConflict, "Conflict")
	_, err = rc.CreateOrUpdate(ctx, testRG, "example.com", "bad", armdns.RecordTypeA,
		armdns.RecordSet{Properties: &armdns.RecordSetProperties{TTL: ptr[int64](1), ARecords: []*armdns.ARecord{{IPv4Address: ptr("2001:db8::1")}}}}, nil)
	responseError(t, err, http.StatusBadRequest, "BadRequest")
	_, err = rc.CreateOrUpdate(ctx, testRG, "example.com", "bad", armdns.RecordTypeA,
		armdns.RecordSet{Properties: &armdns.RecordSetProperties{TTL: ptr[int64](1), MxRecords: []*armdns.MxRecord{}}}, nil)
	responseError(t, err, http.StatusBadRequest, "BadRequest")

	// Lists: all (paged by 2), by zone, by type with a name suffix.
	var all []string
	for p := rc.NewListAllByDNSZonePager(testRG, "example.com", nil); p.More(); {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page.Value {
			all = append(all, *r.Name+"/"+strings.TrimPrefix(*r.Type, "Microsoft.Network/dnszones/"))
		}
	}
	want := []string{"@/NS", "@/SOA", "alias/CNAME", "www/A", "www/AAAA", "www/CAA", "www/MX", "www/NS", "www/PTR", "www/SRV", "www/TXT"}
	if !reflect.DeepEqual(all, want) {
		t.Fatalf("ListAllByDNSZone: %v, want %v", all, want)
	}
	byZone := 0
	for p := rc.NewListByDNSZonePager(testRG, "example.com", &armdns.RecordSetsClientListByDNSZoneOptions{Top: ptr[int32](5)}); p.More(); {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		byZone += len(page.Value)
	}
	if byZone != len(want) {
		t.Fatalf("ListByDNSZone: %d sets, want %d", byZone, len(want))
	}
	_, err = rc.CreateOrUpdate(ctx, testRG, "example.com", "api.www", armdns.RecordTypeTXT,
		armdns.RecordSet{Properties: &armdns.RecordSetProperties{TTL: ptr[int64](1), TxtRecords: []*armdns.TxtRecord{{Value: []*string{ptr("x")}}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var txt []string
	for p := rc.NewListByTypePager(testRG, "example.com", armdns.RecordTypeTXT, &armdns.RecordSetsClientListByTypeOptions{Recordsetnamesuffix: ptr("www")}); p.More(); {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page.Value {
			txt = append(txt, *r.Name)
		}
	}
	if !reflect.DeepEqual(txt, []string{"api.www", "www"}) {
		t.Fatalf("ListByType TXT with suffix www: %v", txt)
	}

	// Delete: If-Match, 200, then 204 for a missing set; the apex SOA stays.
	_, err = rc.Delete(ctx, testRG, "example.com", "www", armdns.RecordTypeMX, &armdns.RecordSetsClientDeleteOptions{IfMatch: ptr("stale")})
	responseError(t, err, http.StatusPreconditionFailed, "PreconditionFailed")
	if _, err := rc.Delete(ctx, testRG, "example.com", "www", armdns.RecordTypeMX, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := rc.Delete(ctx, testRG, "example.com", "www", armdns.RecordTypeMX, nil); err != nil {
		t.Fatalf("delete of a missing set: %v", err)
	}
	_, err = rc.Delete(ctx, testRG, "example.com", "@", armdns.RecordTypeSOA, nil)
	responseError(t, err, http.StatusBadRequest, "BadRequest")
	_, err = rc.Get(ctx, testRG, "example.com", "www", armdns.RecordTypeMX, nil)
	responseError(t, err, http.StatusNotFound, "NotFound")

	checked := checkExchanges(t, f.rec.exchanges())
	var ops []string
	for op := range checked {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	var emulated []string
	for _, r := range Routes() {
		if r.API == APIDNS && r.Emulated {
			emulated = append(emulated, r.Op())
		}
	}
	sort.Strings(emulated)
	if !reflect.DeepEqual(ops, emulated) {
		t.Fatalf("operations driven through the SDK %v, want every emulated one %v", ops, emulated)
	}
	c := f.srv.Counters()
	// MSAL Go asks instance discovery twice on the first login (seen: 2),
	// then caches the endpoints and the token.
	if c.Calls[OpAADInstanceDiscovery] < 1 || c.Calls[OpAADOpenIDConfiguration] != 1 || c.Calls[OpAADToken] != 1 {
		t.Fatalf("login calls %v: want instance discovery, one OpenID configuration and one token", c.Calls)
	}
	for _, ex := range f.rec.exchanges() {
		if ex.path == aadInstanceDiscoveryPath && ex.host != "login.microsoftonline.com" {
			t.Fatalf("instance discovery went to %s; MSAL asks login.microsoftonline.com for a custom authority", ex.host)
		}
	}
}
