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

	cloudflare "github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/option"
	"github.com/cloudflare/cloudflare-go/v7/zones"
)

// TestRunServesZonesToTheSDK starts the command with a seed file and a
// --zone flag, points the real SDK at the printed URL and reads the dump
// through the control API.
func TestRunServesZonesToTheSDK(t *testing.T) {
	seed := filepath.Join(t.TempDir(), "seed.json")
	body := `{"zones":[{"id":"0123456789abcdef0123456789abcdef","name":"example.org",
	  "records":[{"name":"www","type":"A","ttl":300,"content":"192.0.2.1"}]}]}`
	if err := os.WriteFile(seed, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--seed", seed, "--zone", "example.net:pro", "--rate-limit", "0"}, pw, io.Discard)
	}()
	base, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	base = strings.TrimSpace(base)
	if !strings.HasPrefix(base, "http://127.0.0.1:") || !strings.HasSuffix(base, "/client/v4/") {
		t.Fatalf("printed %q, want http://127.0.0.1:PORT/client/v4/", base)
	}
	client := cloudflare.NewClient(option.WithBaseURL(base), option.WithAPIToken("x"))
	page, err := client.Zones.List(ctx, zones.ZoneListParams{})
	if err != nil || len(page.Result) != 2 || page.Result[1].Name != "example.org" || !page.Result[0].Plan.IsSubscribed {
		t.Fatalf("zones %+v (%v)", page, err)
	}
	resp, err := http.Get(strings.TrimSuffix(base, "/client/v4/") + "/_emulator/dump")
	if err != nil {
		t.Fatal(err)
	}
	var dump []struct {
		Name    string
		Records []struct{ Name, Content string }
	}
	err = json.NewDecoder(resp.Body).Decode(&dump)
	resp.Body.Close()
	if err != nil || len(dump) != 2 || len(dump[1].Records) != 1 || dump[1].Records[0].Name != "www.example.org" {
		t.Fatalf("dump %+v (%v)", dump, err)
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

func TestRunRejectsBadSeedAndZone(t *testing.T) {
	seed := filepath.Join(t.TempDir(), "seed.json")
	if err := os.WriteFile(seed, []byte(`{"zones":[{"name":"example.org","records":[{"name":"www","type":"A","content":"not-an-ip"}]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	err := run(context.Background(), []string{"--seed", seed}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "example.org") || !strings.Contains(err.Error(), "IPv4") {
		t.Fatalf("got %v, want the seed error naming the zone and the bad value", err)
	}
	err = run(context.Background(), []string{"--zone", "example.org:gold"}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "gold") {
		t.Fatalf("got %v, want an error naming the unknown plan", err)
	}
}
