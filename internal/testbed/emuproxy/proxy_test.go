package emuproxy

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

// An unmodified HTTPS client with the proxy and the CA reaches a local server under a provider's host
// name, over a new tunnel per request (200 of them, so the ordering of the proxy's 200 answer and the
// client's ClientHello is exercised); a host that is not routed is refused, and nothing is dialled.
func TestProxyRoutesNamedHostsToLocalListeners(t *testing.T) {
	ca, err := NewCA()
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewProxy(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if _, err := p.Serve(ctx, ca, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.Host+" "+r.URL.Path)
	}), GoogleDNSHost, GoogleOAuthHost); err != nil {
		t.Fatal(err)
	}
	tr := p.Transport(ca)
	tr.DisableKeepAlives = true
	client := &http.Client{Transport: tr}
	for i := range 200 {
		host := GoogleDNSHost
		if i%2 == 1 {
			host = GoogleOAuthHost
		}
		res, err := client.Get("https://" + host + "/path")
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		b, _ := io.ReadAll(res.Body)
		_ = res.Body.Close()
		if string(b) != host+" /path" {
			t.Fatalf("request %d: %q", i, b)
		}
	}
	if n := p.Tunnels(); n[GoogleDNSHost+":443"] != 100 || n[GoogleOAuthHost+":443"] != 100 {
		t.Fatalf("tunnels %v", n)
	}
	if _, err := client.Get("https://" + AzureARMHost + "/"); err == nil {
		t.Fatal("a host that is not routed was reached")
	}
	if p.Refused()["CONNECT "+AzureARMHost+":443"] != 1 {
		t.Fatalf("refused %v", p.Refused())
	}
}

// The CA's certificates verify for the names they were made for only, and only against the CA.
func TestCACertificates(t *testing.T) {
	ca, err := NewCA()
	if err != nil {
		t.Fatal(err)
	}
	c, err := ca.Certificate(GoogleDNSHost, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := parseLeaf(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := leaf.VerifyHostname(GoogleDNSHost); err != nil {
		t.Fatal(err)
	}
	if err := leaf.VerifyHostname("127.0.0.1"); err != nil {
		t.Fatal(err)
	}
	if err := leaf.VerifyHostname(AzureARMHost); err == nil {
		t.Fatal("the certificate verified for a name it was not made for")
	}
	if _, err := leaf.Verify(verifyOpts(ca)); err != nil {
		t.Fatal(err)
	}
	other, _ := NewCA()
	if _, err := leaf.Verify(verifyOpts(other)); err == nil {
		t.Fatal("the certificate verified against another CA")
	}
	if !strings.Contains(string(ca.PEM()), "BEGIN CERTIFICATE") {
		t.Fatal("PEM")
	}
}
