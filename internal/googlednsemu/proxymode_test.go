package googlednsemu

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
	dns "google.golang.org/api/dns/v1"
	"google.golang.org/api/option"
)

// TestBehindGoogleHostNames shows the emulator works where the real
// external-dns will reach it: over TLS under dns.googleapis.com and
// oauth2.googleapis.com through a CONNECT proxy, with the key's token_uri
// Google's own and a client built as external-dns builds it (no endpoint
// option). The CA and proxy here are test-local; the testbed's shared
// versions are issue 14's part 2.
func TestBehindGoogleHostNames(t *testing.T) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "emulator test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	leafKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, &x509.Certificate{SerialNumber: big.NewInt(2),
		DNSNames: []string{"dns.googleapis.com", "oauth2.googleapis.com"}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}, ca, &leafKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	emu := New(Options{})
	if _, err := emu.Seed(Seed{Projects: []SeedProject{{ID: testProject, Zones: []SeedZone{{Name: "pub", DNSName: "example.com."}}}}}); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(emu)
	ts.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{leafDER}, PrivateKey: leafKey}}}
	ts.StartTLS()
	defer ts.Close()
	target := ts.Listener.Addr().String()
	var mu sync.Mutex
	tunnels := map[string]int{}
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect || (r.Host != "dns.googleapis.com:443" && r.Host != "oauth2.googleapis.com:443") {
			http.Error(w, "only CONNECT to the emulated Google hosts", http.StatusForbidden)
			return
		}
		mu.Lock()
		tunnels[r.Host]++
		mu.Unlock()
		up, err := net.Dial("tcp", target)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		// Hijack before answering and read the client's side through the
		// returned buffer: bytes the client sends right after the 200 (its TLS
		// ClientHello) may already sit in the server's read buffer, and
		// answering through the ResponseWriter first raced with that (CI saw
		// "first record does not look like a TLS handshake").
		down, buffered, err := http.NewResponseController(w).Hijack()
		if err != nil {
			up.Close()
			return
		}
		if _, err := down.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n")); err != nil {
			up.Close()
			down.Close()
			return
		}
		go func() { _, _ = io.Copy(up, buffered.Reader); up.Close() }()
		_, _ = io.Copy(down, up)
		down.Close()
	}))
	defer proxy.Close()
	proxyURL, _ := url.Parse(proxy.URL)
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	base := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxyURL), TLSClientConfig: &tls.Config{RootCAs: roots}}}

	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, base)
	conf, err := google.JWTConfigFromJSON(serviceAccountJSON(t, "https://oauth2.googleapis.com/token"), dns.NdevClouddnsReadwriteScope)
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
	mu.Lock()
	defer mu.Unlock()
	if tunnels["oauth2.googleapis.com:443"] == 0 || tunnels["dns.googleapis.com:443"] == 0 {
		t.Fatalf("tunnels %v: the client did not go through the proxy to both hosts", tunnels)
	}
	c := emu.Counters()
	if c.Calls[OpToken] != 1 || c.Calls[OpZonesList] != 1 || c.Calls[OpChangesPost] != 1 {
		t.Fatalf("counters %+v", c)
	}
}
