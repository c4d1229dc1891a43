package googlednsemu

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkChangeIntoLargeZone posts a change of 1,000 additions and their
// 1,000 deletions (the documented per-change maximum) into a zone holding
// 8,000 record sets, over HTTP.
func BenchmarkChangeIntoLargeZone(b *testing.B) {
	emu := New(Options{StaticTokens: []string{"t"}})
	seed := SeedZone{Name: "big", DNSName: "example.com."}
	for i := range 8000 {
		seed.RRSets = append(seed.RRSets, SeedRRSet{Name: fmt.Sprintf("h%d", i), Type: "A", TTL: 60, Rrdatas: []string{"192.0.2.1"}})
	}
	if _, err := emu.Seed(Seed{Projects: []SeedProject{{ID: testProject, Zones: []SeedZone{seed}}}}); err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(emu)
	defer srv.Close()
	sets := func(prefix, ip string) string {
		parts := make([]string, 1000)
		for i := range parts {
			parts[i] = fmt.Sprintf(`{"name":"%s%d.example.com.","type":"A","ttl":60,"rrdatas":["%s"]}`, prefix, i, ip)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	add := `{"additions":` + sets("n", "192.0.2.2") + `}`
	swap := `{"deletions":` + sets("n", "192.0.2.2") + `,"additions":` + sets("n", "192.0.2.3") + `}`
	back := `{"deletions":` + sets("n", "192.0.2.3") + `,"additions":` + sets("n", "192.0.2.2") + `}`
	post := func(body string) {
		req, _ := http.NewRequest("POST", srv.URL+"/dns/v1/projects/"+testProject+"/managedZones/big/changes", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer t")
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != 200 {
			b.Fatalf("change: %v %v", resp, err)
		}
		resp.Body.Close()
	}
	post(add)
	b.ResetTimer()
	for i := range b.N {
		if i%2 == 0 {
			post(swap)
		} else {
			post(back)
		}
	}
}

// BenchmarkListPage lists one page of 1,000 record sets from a 8,000-set
// zone.
func BenchmarkListPage(b *testing.B) {
	emu := New(Options{StaticTokens: []string{"t"}})
	seed := SeedZone{Name: "big", DNSName: "example.com."}
	for i := range 8000 {
		seed.RRSets = append(seed.RRSets, SeedRRSet{Name: fmt.Sprintf("h%d", i), Type: "A", TTL: 60, Rrdatas: []string{"192.0.2.1"}})
	}
	if _, err := emu.Seed(Seed{Projects: []SeedProject{{ID: testProject, Zones: []SeedZone{seed}}}}); err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(emu)
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/dns/v1/projects/"+testProject+"/managedZones/big/rrsets?maxResults=1000", nil)
	req.Header.Set("Authorization", "Bearer t")
	b.ResetTimer()
	for range b.N {
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != 200 {
			b.Fatalf("list: %v %v", resp, err)
		}
		resp.Body.Close()
	}
}
