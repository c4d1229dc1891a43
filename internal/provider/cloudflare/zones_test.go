package cloudflare

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/cloudflareemu"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

func names(eps []*endpoint.Endpoint) string {
	var out []string
	for _, e := range eps {
		out = append(out, e.DNSName+" "+e.RecordType)
	}
	return strings.Join(out, ", ")
}

func threeZones(t *testing.T) (*cloudflareemu.Server, string, map[string]string) {
	emu, base := emulator(t, cloudflareemu.Options{})
	rec := func(name string) []cloudflareemu.SeedRecord {
		return []cloudflareemu.SeedRecord{{Name: name, Type: "A", Content: "192.0.2.1", TTL: 300}}
	}
	ids := seedZones(t, emu,
		cloudflareemu.SeedZone{Name: "example.com", Records: append(rec("www.example.com"), rec("x.sub.example.com")...)},
		cloudflareemu.SeedZone{Name: "example.org", Records: rec("www.example.org")},
		cloudflareemu.SeedZone{Name: "other.net", Records: rec("www.other.net")})
	return emu, base, ids
}

// --zone-id-filter names the zones (the domain filter is not applied to them, as in external-dns);
// --domain-filter selects zones by name, and a filter below a zone manages that part of it.
func TestZoneFilters(t *testing.T) {
	emu, base, ids := threeZones(t)
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, "www.example.com A, www.example.org A, www.other.net A, x.sub.example.com A"},
		{Config{ZoneIDFilter: []string{ids["example.org"], ids["other.net"]}}, "www.example.org A, www.other.net A"},
		{Config{DomainFilter: []string{"example.com", "other.net"}}, "www.example.com A, www.other.net A, x.sub.example.com A"},
		{Config{DomainFilter: []string{"sub.example.com"}}, "x.sub.example.com A"},
	} {
		p := newTestProvider(t, base, c.cfg)
		eps, err := p.Records(testCtx(t))
		if err != nil {
			t.Fatal(err)
		}
		if got := names(eps); got != c.want {
			t.Errorf("%+v: %s, want %s", c.cfg, got, c.want)
		}
	}
	p := newTestProvider(t, base, Config{ZoneIDFilter: []string{"0123456789abcdef0123456789abcdef"}})
	if _, err := p.Records(testCtx(t)); err == nil || !strings.Contains(err.Error(), "--zone-id-filter=0123456789abcdef0123456789abcdef") {
		t.Errorf("unknown zone id: %v", err)
	}
	_ = emu
}

// --cloudflare-dns-records-per-page sets the page size of record listings: 23 records at 5 per page
// are 5 pages, all read.
func TestRecordsPaging(t *testing.T) {
	emu, base := emulator(t, cloudflareemu.Options{})
	var recs []cloudflareemu.SeedRecord
	for i := 0; i < 23; i++ {
		recs = append(recs, cloudflareemu.SeedRecord{Name: fmt.Sprintf("h%02d.example.com", i), Type: "A", Content: "192.0.2.1", TTL: 300})
	}
	seedZones(t, emu, cloudflareemu.SeedZone{Name: "example.com", Records: recs})
	p := newTestProvider(t, base, Config{RecordsPerPage: 5})
	emu.ClearCalls()
	eps, err := p.Records(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(eps) != 23 {
		t.Fatalf("%d record sets, want 23", len(eps))
	}
	if n := emu.Counters().Calls[cloudflareemu.OpRecordsList]; n != 5 {
		t.Errorf("%d list pages, want 5", n)
	}
	for _, c := range emu.Calls() {
		if c.Operation == cloudflareemu.OpRecordsList && !strings.Contains(c.Query, "per_page=5") {
			t.Errorf("listing without per_page=5: %s", c.Query)
		}
	}
}
