package azurednsemu

import (
	"context"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/privatedns/armprivatedns"
)

// TestPrivateDNSThroughTheSDK drives every emulated Azure Private DNS
// operation through armprivatedns, including an auto-registered record set
// that every write must leave alone, and checks every raw answer against
// the swagger definitions.
func TestPrivateDNSThroughTheSDK(t *testing.T) {
	f := startTLS(t, Options{PageSize: 2})
	ctx := context.Background()
	vnet := "/subscriptions/" + testSub + "/resourceGroups/" + testRG + "/providers/Microsoft.Network/virtualNetworks/vnet1"
	mustSeed(t, f.srv, Seed{Subscriptions: []SeedSubscription{{ID: testSub, ResourceGroups: []SeedResourceGroup{
		{Name: testRG, PrivateZones: []SeedZone{{Name: "internal.example",
			RecordSets:          []SeedRecordSet{{Name: "vm1", Type: "A", TTL: 10, Records: []string{"10.0.0.4"}, AutoRegistered: true}},
			VirtualNetworkLinks: []SeedLink{{Name: "link-b", VirtualNetwork: vnet, RegistrationEnabled: true}, {Name: "link-a", VirtualNetwork: vnet + "2"}, {Name: "link-c", VirtualNetwork: vnet + "3"}}},
			{Name: "b.internal"}, {Name: "c.internal"}}},
		{Name: "rg-other", PrivateZones: []SeedZone{{Name: "other.internal"}}, Zones: []SeedZone{{Name: "public.example"}}},
	}}}})
	opts := f.armOptions(0)
	zc, err := armprivatedns.NewPrivateZonesClient(testSub, f.cred, opts)
	if err != nil {
		t.Fatal(err)
	}
	lc, err := armprivatedns.NewVirtualNetworkLinksClient(testSub, f.cred, opts)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := armprivatedns.NewRecordSetsClient(testSub, f.cred, opts)
	if err != nil {
		t.Fatal(err)
	}

	var names []string
	for p := zc.NewListByResourceGroupPager(testRG, nil); p.More(); {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, z := range page.Value {
			names = append(names, *z.Name)
		}
	}
	if want := []string{"b.internal", "c.internal", "internal.example"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("private zones by resource group %v, want %v (public zones must not be listed)", names, want)
	}
	n := 0
	for p := zc.NewListPager(nil); p.More(); {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n += len(page.Value)
	}
	if n != 4 {
		t.Fatalf("private zones in the subscription: %d, want 4", n)
	}
	z, err := zc.Get(ctx, testRG, "internal.example", nil)
	if err != nil {
		t.Fatal(err)
	}
	if *z.Type != "Microsoft.Network/privateDnsZones" || *z.Properties.NumberOfRecordSets != 2 || *z.Properties.NumberOfVirtualNetworkLinks != 3 ||
		*z.Properties.NumberOfVirtualNetworkLinksWithRegistration != 1 || *z.Properties.ProvisioningState != armprivatedns.ProvisioningStateSucceeded {
		t.Fatalf("private zone %+v", z.Properties)
	}
	// A public zone of the same resource group is not a private zone.
	_, err = zc.Get(ctx, "rg-other", "public.example", nil)
	responseError(t, err, http.StatusNotFound, "ResourceNotFound")

	var links []string
	for p := lc.NewListPager(testRG, "internal.example", nil); p.More(); {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range page.Value {
			links = append(links, *l.Name)
		}
	}
	if !reflect.DeepEqual(links, []string{"link-a", "link-b", "link-c"}) {
		t.Fatalf("links %v", links)
	}
	l, err := lc.Get(ctx, testRG, "internal.example", "link-b", nil)
	if err != nil || !*l.Properties.RegistrationEnabled || *l.Properties.VirtualNetwork.ID != vnet {
		t.Fatalf("link %+v (%v)", l, err)
	}

	sets := map[armprivatedns.RecordType]armprivatedns.RecordSetProperties{
		armprivatedns.RecordTypeA:     {TTL: ptr[int64](300), ARecords: []*armprivatedns.ARecord{{IPv4Address: ptr("10.1.0.1")}}, Metadata: map[string]*string{"owner": ptr("zk")}},
		armprivatedns.RecordTypeAAAA:  {TTL: ptr[int64](300), AaaaRecords: []*armprivatedns.AaaaRecord{{IPv6Address: ptr("fd00::1")}}},
		armprivatedns.RecordTypeMX:    {TTL: ptr[int64](300), MxRecords: []*armprivatedns.MxRecord{{Preference: ptr[int32](10), Exchange: ptr("mail.internal.example")}}},
		armprivatedns.RecordTypePTR:   {TTL: ptr[int64](300), PtrRecords: []*armprivatedns.PtrRecord{{Ptrdname: ptr("host.internal.example")}}},
		armprivatedns.RecordTypeSRV:   {TTL: ptr[int64](300), SrvRecords: []*armprivatedns.SrvRecord{{Priority: ptr[int32](1), Weight: ptr[int32](2), Port: ptr[int32](53), Target: ptr("t.internal.example")}}},
		armprivatedns.RecordTypeTXT:   {TTL: ptr[int64](300), TxtRecords: []*armprivatedns.TxtRecord{{Value: []*string{ptr("heritage=external-dns")}}}},
		armprivatedns.RecordTypeCNAME: {TTL: ptr[int64](60), CnameRecord: &armprivatedns.CnameRecord{Cname: ptr("app.internal.example")}},
	}
	for typ, props := range sets {
		name := "app"
		if typ == armprivatedns.RecordTypeCNAME {
			name = "alias"
		}
		got, err := rc.CreateOrUpdate(ctx, testRG, "internal.example", typ, name, armprivatedns.RecordSet{Properties: &props}, nil)
		if err != nil {
			t.Fatalf("create %s: %v", typ, err)
		}
		want := props
		want.Fqdn, want.IsAutoRegistered = ptr(name+".internal.example."), ptr(false)
		if !reflect.DeepEqual(*got.Properties, want) || *got.Type != "Microsoft.Network/privateDnsZones/"+string(typ) {
			t.Fatalf("create %s: got %+v", typ, got.RecordSet)
		}
		read, err := rc.Get(ctx, testRG, "internal.example", typ, name, nil)
		if err != nil || !reflect.DeepEqual(read.RecordSet, got.RecordSet) {
			t.Fatalf("get %s: %+v (%v)", typ, read.RecordSet, err)
		}
	}
	a := armprivatedns.RecordSet{Properties: &armprivatedns.RecordSetProperties{TTL: ptr[int64](30), ARecords: []*armprivatedns.ARecord{{IPv4Address: ptr("10.1.0.2")}}}}
	_, err = rc.CreateOrUpdate(ctx, testRG, "internal.example", armprivatedns.RecordTypeA, "app", a, &armprivatedns.RecordSetsClientCreateOrUpdateOptions{IfNoneMatch: ptr("*")})
	responseError(t, err, http.StatusPreconditionFailed, "PreconditionFailed")
	cur, err := rc.Get(ctx, testRG, "internal.example", armprivatedns.RecordTypeA, "app", nil)
	if err != nil {
		t.Fatal(err)
	}
	patched, err := rc.Update(ctx, testRG, "internal.example", armprivatedns.RecordTypeA, "app",
		armprivatedns.RecordSet{Properties: &armprivatedns.RecordSetProperties{TTL: ptr[int64](42)}}, &armprivatedns.RecordSetsClientUpdateOptions{IfMatch: cur.Etag})
	if err != nil || *patched.Properties.TTL != 42 || *patched.Properties.ARecords[0].IPv4Address != "10.1.0.1" {
		t.Fatalf("patch: %+v (%v)", patched.RecordSet, err)
	}

	// The auto-registered set is listed with isAutoRegistered and refuses
	// every write.
	auto, err := rc.Get(ctx, testRG, "internal.example", armprivatedns.RecordTypeA, "vm1", nil)
	if err != nil || !*auto.Properties.IsAutoRegistered {
		t.Fatalf("auto-registered set %+v (%v)", auto.RecordSet, err)
	}
	_, err = rc.CreateOrUpdate(ctx, testRG, "internal.example", armprivatedns.RecordTypeA, "vm1", a, nil)
	responseError(t, err, http.StatusBadRequest, "BadRequest")
	_, err = rc.Update(ctx, testRG, "internal.example", armprivatedns.RecordTypeA, "vm1", a, nil)
	responseError(t, err, http.StatusBadRequest, "BadRequest")
	_, err = rc.Delete(ctx, testRG, "internal.example", armprivatedns.RecordTypeA, "vm1", nil)
	responseError(t, err, http.StatusBadRequest, "BadRequest")

	var all []string
	for p := rc.NewListPager(testRG, "internal.example", nil); p.More(); {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page.Value {
			all = append(all, *r.Name+"/"+strings.TrimPrefix(*r.Type, "Microsoft.Network/privateDnsZones/"))
		}
	}
	want := []string{"@/SOA", "alias/CNAME", "app/A", "app/AAAA", "app/MX", "app/PTR", "app/SRV", "app/TXT", "vm1/A"}
	if !reflect.DeepEqual(all, want) {
		t.Fatalf("List: %v, want %v", all, want)
	}
	var as []string
	for p := rc.NewListByTypePager(testRG, "internal.example", armprivatedns.RecordTypeA, nil); p.More(); {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page.Value {
			as = append(as, *r.Name)
		}
	}
	if !reflect.DeepEqual(as, []string{"app", "vm1"}) {
		t.Fatalf("ListByType A: %v", as)
	}
	if _, err := rc.Delete(ctx, testRG, "internal.example", armprivatedns.RecordTypeTXT, "app", &armprivatedns.RecordSetsClientDeleteOptions{IfMatch: ptr("*")}); err != nil {
		t.Fatal(err)
	}
	if _, err := rc.Delete(ctx, testRG, "internal.example", armprivatedns.RecordTypeTXT, "app", nil); err != nil {
		t.Fatalf("delete of a missing set: %v", err)
	}

	checked := checkExchanges(t, f.rec.exchanges())
	var ops, emulated []string
	for op := range checked {
		ops = append(ops, op)
	}
	for _, r := range Routes() {
		if r.API == APIPrivateDNS && r.Emulated {
			emulated = append(emulated, r.Op())
		}
	}
	sort.Strings(ops)
	sort.Strings(emulated)
	if !reflect.DeepEqual(ops, emulated) {
		t.Fatalf("operations driven through the SDK %v, want every emulated one %v", ops, emulated)
	}
}
