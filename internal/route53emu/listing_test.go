package route53emu_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	"github.com/aws/aws-sdk-go-v2/service/route53/types"

	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

func TestListingOrderAndEscaping(t *testing.T) {
	e := startEmu(t, route53emu.Options{})
	id := e.createZone(t, "example.com")
	e.mustChange(t, id,
		create(rrs("b.example.com", "TXT", 60, `"t"`)),
		create(rrs("*.Example.com", "A", 60, "1.1.1.1")),
		create(rrs("a-b.example.com", "A", 60, "1.1.1.1")),
		create(rrs("a.b.example.com", "A", 60, "1.1.1.1")),
		create(rrs("b.example.com", "A", 60, "1.1.1.1")),
		create(rrs("b.example.com", "AAAA", 60, "::1")),
		create(rrs(`x\100y.example.com`, "A", 60, "1.1.1.1")),
	)
	var got []string
	for _, s := range e.listAll(t, id) {
		got = append(got, *s.Name+" "+string(s.Type))
	}
	// Reversed-label string order on the escaped form: "com.example.\052."
	// comes first because '\' (0x5c) sorts before letters; "com.example.a-b."
	// < "com.example.b." < "com.example.b.a." < "com.example.x\100y.".
	want := []string{
		"example.com. NS", "example.com. SOA",
		`\052.example.com. A`,
		"a-b.example.com. A",
		"b.example.com. A", "b.example.com. AAAA", "b.example.com. TXT",
		"a.b.example.com. A",
		`x\100y.example.com. A`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("listing order\ngot:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestListResourceRecordSetsPagination(t *testing.T) {
	e := startEmu(t, route53emu.Options{})
	id := e.createZone(t, "example.com")
	var changes []types.Change
	for i := 0; i < 25; i++ {
		changes = append(changes, create(rrs(fmt.Sprintf("h%02d.example.com", i), "A", 60, "1.1.1.1")))
	}
	for _, sid := range []string{"c", "a", "b"} {
		changes = append(changes, create(weighted(rrs("w.example.com", "A", 60, "1.1.1.1"), sid, 1)))
	}
	e.mustChange(t, id, changes...)
	full := e.listAll(t, id)
	if len(full) != 30 {
		t.Fatalf("%d sets, want 30", len(full))
	}
	for _, size := range []int32{1, 2, 7, 29, 30, 31} {
		var walked []string
		var pages int
		p := route53.NewListResourceRecordSetsPaginator(e.r53, &route53.ListResourceRecordSetsInput{HostedZoneId: aws.String(id), MaxItems: aws.Int32(size)})
		for p.HasMorePages() {
			page, err := p.NextPage(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			pages++
			if pages > 100 {
				t.Fatalf("MaxItems %d: pagination does not end", size)
			}
			if len(page.ResourceRecordSets) > int(size) {
				t.Fatalf("page of %d sets with MaxItems %d", len(page.ResourceRecordSets), size)
			}
			if !page.IsTruncated && (page.NextRecordName != nil || page.NextRecordType != "" || page.NextRecordIdentifier != nil) {
				t.Fatalf("last page carries Next* fields")
			}
			for _, s := range page.ResourceRecordSets {
				walked = append(walked, *s.Name+string(s.Type)+aws.ToString(s.SetIdentifier))
			}
		}
		if len(walked) != 30 || pages != (30+int(size)-1)/int(size) {
			t.Fatalf("MaxItems %d: %d sets in %d pages", size, len(walked), pages)
		}
	}
	// A page ending inside the weighted group names the next identifier.
	out, err := e.r53.ListResourceRecordSets(context.Background(), &route53.ListResourceRecordSetsInput{
		HostedZoneId: aws.String(id), StartRecordName: aws.String("W.example.com"), StartRecordType: "A", MaxItems: aws.Int32(1)})
	if err != nil {
		t.Fatal(err)
	}
	if got := aws.ToString(out.ResourceRecordSets[0].SetIdentifier); got != "a" || aws.ToString(out.NextRecordIdentifier) != "b" || aws.ToString(out.NextRecordName) != "w.example.com." || out.NextRecordType != "A" {
		t.Fatalf("first weighted set %q, next %v/%v/%v", got, aws.ToString(out.NextRecordName), out.NextRecordType, aws.ToString(out.NextRecordIdentifier))
	}
	// Name only: first set with name ≥ start (h10 exists, h10a does not).
	out, err = e.r53.ListResourceRecordSets(context.Background(), &route53.ListResourceRecordSetsInput{
		HostedZoneId: aws.String(id), StartRecordName: aws.String("h10a.example.com"), MaxItems: aws.Int32(1)})
	if err != nil || *out.ResourceRecordSets[0].Name != "h11.example.com." || aws.ToInt32(out.MaxItems) != 1 {
		t.Fatalf("start at h10a: %v %v", err, out)
	}
	// Type without name is refused; maxitems above 300 is clamped and echoed.
	_, err = e.r53.ListResourceRecordSets(context.Background(), &route53.ListResourceRecordSetsInput{HostedZoneId: aws.String(id), StartRecordType: "A"})
	if code, _ := apiError(t, err); code != "InvalidInput" {
		t.Fatalf("type without name: %s", code)
	}
	out, err = e.r53.ListResourceRecordSets(context.Background(), &route53.ListResourceRecordSetsInput{HostedZoneId: aws.String(id), MaxItems: aws.Int32(500)})
	if err != nil || len(out.ResourceRecordSets) != 30 || aws.ToInt32(out.MaxItems) != 500 {
		t.Fatalf("maxitems 500: %v", err)
	}
	out, err = e.r53.ListResourceRecordSets(context.Background(), &route53.ListResourceRecordSetsInput{HostedZoneId: aws.String(id)})
	if err != nil || aws.ToInt32(out.MaxItems) != 100 {
		t.Fatalf("default maxitems: %v %v", err, aws.ToInt32(out.MaxItems))
	}
}

func TestListRecordsPageLimit300(t *testing.T) {
	e := startEmu(t, route53emu.Options{})
	id := seedRecords(t, e, 400)
	out, err := e.r53.ListResourceRecordSets(context.Background(), &route53.ListResourceRecordSetsInput{HostedZoneId: aws.String(id), MaxItems: aws.Int32(1000)})
	if err != nil || len(out.ResourceRecordSets) != 300 || !out.IsTruncated {
		t.Fatalf("page of %d sets (truncated %v), want 300: %v", len(out.ResourceRecordSets), out.IsTruncated, err)
	}
}

func seedRecords(t testing.TB, e *emu, n int) string {
	t.Helper()
	var recs []route53emu.RecordSet
	for i := 0; i < n; i++ {
		recs = append(recs, route53emu.RecordSet{Name: fmt.Sprintf("r%05d.example.com", i), Type: "A", TTL: route53emu.NumberOf(60),
			ResourceRecords: &route53emu.ResourceRecords{Items: []route53emu.ResourceRecord{{Value: "10.0.0.1"}}}})
	}
	zones, err := e.srv.Seed(route53emu.Seed{Zones: []route53emu.SeedZone{{Name: "example.com", Records: recs}}})
	if err != nil {
		t.Fatal(err)
	}
	return zones[0].ID
}
