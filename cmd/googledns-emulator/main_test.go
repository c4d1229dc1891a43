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

	"golang.org/x/oauth2/google"
	dns "google.golang.org/api/dns/v1"
	"google.golang.org/api/option"
)

// TestRunServesZonesToTheSDK starts the command with a seed file, a public
// and a private zone, takes the printed endpoint and the written
// service-account key, and lists zones and records through the dns/v1
// client with a token from the emulator's /token.
func TestRunServesZonesToTheSDK(t *testing.T) {
	dir := t.TempDir()
	seed := filepath.Join(dir, "seed.json")
	body := `{"projects":[{"id":"emu-project","zones":[{"name":"seeded","dnsName":"example.org.",
	  "rrsets":[{"name":"www","type":"A","ttl":300,"rrdatas":["192.0.2.1"]}]}]}]}`
	if err := os.WriteFile(seed, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	credFile := filepath.Join(dir, "sa.json")
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--seed", seed, "--zone", "pub=example.com", "--private-zone", "priv=internal.example.",
			"--write-credentials", credFile}, pw, io.Discard)
	}()
	endpoint, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	endpoint = strings.TrimSpace(endpoint)
	if !strings.HasPrefix(endpoint, "http://127.0.0.1:") || !strings.HasSuffix(endpoint, "/") {
		t.Fatalf("printed %q, want http://127.0.0.1:PORT/", endpoint)
	}
	key, err := os.ReadFile(credFile)
	if err != nil {
		t.Fatal(err)
	}
	creds, err := google.CredentialsFromJSON(ctx, key, dns.NdevClouddnsReadwriteScope)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := dns.NewService(ctx, option.WithEndpoint(endpoint), option.WithTokenSource(creds.TokenSource))
	if err != nil {
		t.Fatal(err)
	}
	zones, err := svc.ManagedZones.List("emu-project").Do()
	if err != nil || len(zones.ManagedZones) != 3 {
		t.Fatalf("zones %+v (%v)", zones, err)
	}
	vis := map[string]string{}
	for _, z := range zones.ManagedZones {
		vis[z.Name] = z.Visibility
	}
	if vis["pub"] != "public" || vis["priv"] != "private" || vis["seeded"] != "public" {
		t.Fatalf("visibility %v", vis)
	}
	rr, err := svc.ResourceRecordSets.List("emu-project", "seeded").Name("www.example.org.").Do()
	if err != nil || len(rr.Rrsets) != 1 || rr.Rrsets[0].Rrdatas[0] != "192.0.2.1" {
		t.Fatalf("rrsets %+v (%v)", rr, err)
	}
	// Application Default Credentials from the written key file (what a
	// provider built on google.golang.org/api does) also get their token
	// from the emulator, not as a self-signed JWT.
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", credFile)
	adc, err := dns.NewService(ctx, option.WithEndpoint(endpoint), option.WithScopes(dns.NdevClouddnsReadwriteScope))
	if err != nil {
		t.Fatal(err)
	}
	if z, err := adc.ManagedZones.Get("emu-project", "priv").Do(); err != nil || z.PrivateVisibilityConfig == nil {
		t.Fatalf("ADC client: %+v (%v)", z, err)
	}
	resp, err := http.Get(endpoint + "_emulator/counters")
	if err != nil {
		t.Fatal(err)
	}
	var counters struct{ Calls map[string]int }
	err = json.NewDecoder(resp.Body).Decode(&counters)
	resp.Body.Close()
	if err != nil || counters.Calls["oauth2.token"] != 2 || counters.Calls["dns.managedZones.list"] != 1 {
		t.Fatalf("counters %+v (%v)", counters, err)
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

func TestRunRejectsBadFlags(t *testing.T) {
	seed := filepath.Join(t.TempDir(), "seed.json")
	if err := os.WriteFile(seed, []byte(`{"projects":[{"id":"emu-project","zones":[{"name":"z","dnsName":"example.org.","rrsets":[{"name":"www","type":"A","ttl":60,"rrdatas":["not-an-ip"]}]}]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--seed", seed}, "not-an-ip"},
		{[]string{"--zone", "nodnsname"}, "NAME=DNSNAME"},
		{[]string{"--zone", "Bad_Name=example.com"}, "Bad_Name"},
		{[]string{"--rate-limit", "-1"}, "negative"},
	} {
		err := run(context.Background(), c.args, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want an error containing %q", c.args, err, c.want)
		}
	}
}
