package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRunServesSeededZones starts the command on a free loopback port with a
// seed file and reads the zone back through the control API.
func TestRunServesSeededZones(t *testing.T) {
	seed := filepath.Join(t.TempDir(), "seed.json")
	body := `{"zones":[{"id":"ZSEED1","name":"example.org","tags":{"env":"test"},
	  "records":[{"name":"www.example.org","type":"A","ttl":300,"resourceRecords":["192.0.2.1"]},
	             {"name":"*.example.org","type":"TXT","ttl":60,"resourceRecords":["\"hello\""]}]}]}`
	if err := os.WriteFile(seed, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"--seed", seed, "--rate-limit", "0"}, pw, io.Discard) }()
	url, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	url = strings.TrimSpace(url)
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("printed URL %q, want a loopback URL", url)
	}
	resp, err := http.Get(url + "/_emulator/zones")
	if err != nil {
		t.Fatal(err)
	}
	var zones []struct {
		ID      string
		Records []struct{ Name, Type string }
	}
	err = json.NewDecoder(resp.Body).Decode(&zones)
	resp.Body.Close()
	if err != nil || len(zones) != 1 || zones[0].ID != "ZSEED1" || len(zones[0].Records) != 4 || zones[0].Records[2].Name != `\052.example.org.` {
		t.Fatalf("zones %+v (%v)", zones, err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return after cancel")
	}
}

func TestRunRejectsBadSeed(t *testing.T) {
	seed := filepath.Join(t.TempDir(), "seed.json")
	if err := os.WriteFile(seed, []byte(`{"zones":[{"name":"example.org","records":[{"name":"www.example.org","type":"A","ttl":300,"resourceRecords":["not-an-ip"]}]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	err := run(context.Background(), []string{"--seed", seed}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "ARRDATAIllegalIPv4Address") || !strings.Contains(err.Error(), "example.org") {
		t.Fatalf("got %v, want the seed error naming the zone and the bad value", err)
	}
}
