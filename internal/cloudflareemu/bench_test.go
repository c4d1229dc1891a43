package cloudflareemu

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkBatch200Posts measures one 200-post batch (external-dns's batch
// size) over HTTP into a zone that already holds 2,000 records.
func BenchmarkBatch200Posts(b *testing.B) {
	srv := New(Options{})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	var recs []SeedRecord
	for i := 0; i < 2000; i++ {
		recs = append(recs, SeedRecord{Name: fmt.Sprintf("h%d", i), Type: "A", Content: "192.0.2.1"})
	}
	seeded, err := srv.Seed(Seed{Zones: []SeedZone{{Name: "example.com", Plan: "pro", Records: recs}}})
	if err != nil {
		b.Fatal(err)
	}
	url := hs.URL + APIPrefix + "zones/" + seeded[0].ID + "/dns_records/batch"
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		posts := make([]map[string]any, 200)
		for i := range posts {
			posts[i] = map[string]any{"name": fmt.Sprintf("b%d-%d", n, i), "type": "TXT", "content": "x"}
		}
		body, _ := json.Marshal(map[string]any{"posts": posts})
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer x")
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != 200 {
			b.Fatalf("batch: %v %v", err, resp)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// BenchmarkListPage100Of2000 measures one 100-record page of a 2,000-record
// zone.
func BenchmarkListPage100Of2000(b *testing.B) {
	srv := New(Options{})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	var recs []SeedRecord
	for i := 0; i < 2000; i++ {
		recs = append(recs, SeedRecord{Name: fmt.Sprintf("h%d", i), Type: "A", Content: "192.0.2.1"})
	}
	seeded, err := srv.Seed(Seed{Zones: []SeedZone{{Name: "example.com", Records: recs}}})
	if err != nil {
		b.Fatal(err)
	}
	url := hs.URL + APIPrefix + "zones/" + seeded[0].ID + "/dns_records?per_page=100&page=7"
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.Header.Set("Authorization", "Bearer x")
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != 200 {
			b.Fatalf("list: %v %v", err, resp)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
