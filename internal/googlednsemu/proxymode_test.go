package googlednsemu

import (
	"context"
	"net/http"
	"testing"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
	dns "google.golang.org/api/dns/v1"
	"google.golang.org/api/option"

	"github.com/zonekeeper/zonekeeper/internal/testbed/emuproxy"
)

// TestBehindGoogleHostNames shows the emulator works where the real
// external-dns will reach it: over TLS under dns.googleapis.com and
// oauth2.googleapis.com through a CONNECT proxy, with the key's token_uri
// Google's own and a client built as external-dns builds it (no endpoint
// option). The CA and the proxy are the testbed's (internal/testbed/emuproxy).
func TestBehindGoogleHostNames(t *testing.T) {
	ca, err := emuproxy.NewCA()
	if err != nil {
		t.Fatal(err)
	}
	proxy, err := emuproxy.NewProxy(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	emu := New(Options{})
	if _, err := emu.Seed(Seed{Projects: []SeedProject{{ID: testProject, Zones: []SeedZone{{Name: "pub", DNSName: "example.com."}}}}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := proxy.Serve(ctx, ca, emu, emuproxy.GoogleDNSHost, emuproxy.GoogleOAuthHost); err != nil {
		t.Fatal(err)
	}
	base := &http.Client{Transport: proxy.Transport(ca)}

	ctx = context.WithValue(ctx, oauth2.HTTPClient, base)
	conf, err := google.JWTConfigFromJSON(serviceAccountJSON(t, emuproxy.GoogleTokenURI), dns.NdevClouddnsReadwriteScope)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := dns.NewService(ctx, option.WithHTTPClient(conf.Client(ctx)))
	if err != nil {
		t.Fatal(err)
	}
	zones, err := svc.ManagedZones.List(testProject).Do()
	if err != nil || len(zones.ManagedZones) != 1 || zones.ManagedZones[0].DnsName != "example.com." {
		t.Fatalf("zones through the proxy: %+v (%v)", zones, err)
	}
	if _, err := svc.Changes.Create(testProject, "pub", &dns.Change{Additions: []*dns.ResourceRecordSet{rrs("www.example.com.", "A", 60, "192.0.2.1")}}).Do(); err != nil {
		t.Fatal(err)
	}
	tunnels := proxy.Tunnels()
	if tunnels["oauth2.googleapis.com:443"] == 0 || tunnels["dns.googleapis.com:443"] == 0 {
		t.Fatalf("tunnels %v: the client did not go through the proxy to both hosts", tunnels)
	}
	c := emu.Counters()
	if c.Calls[OpToken] != 1 || c.Calls[OpZonesList] != 1 || c.Calls[OpChangesPost] != 1 {
		t.Fatalf("counters %+v", c)
	}
}
