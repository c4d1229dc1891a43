package pdns

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

func TestConfigChecks(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key")
	if err := os.WriteFile(keyFile, []byte("from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if p, err := New(Config{APIKeyFile: keyFile}); err != nil || p.api.apiKey != "from-file" {
		t.Fatalf("key file: %v", err)
	}
	p, err := New(Config{APIKey: "k"})
	if err != nil || p.api.base.String() != DefaultServer || p.api.server != DefaultServerID {
		t.Fatalf("defaults: %v %v", p, err)
	}
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, "--pdns-api-key: an API key is required"},
		{Config{APIKey: "k", APIKeyFile: keyFile}, "both set"},
		{Config{APIKeyFile: filepath.Join(dir, "missing")}, "API key file"},
		{Config{APIKey: "k", Server: "ftp://pdns:21"}, `scheme "ftp"`},
		{Config{APIKey: "k", Server: "pdns:8081"}, "--pdns-server"},
		{Config{APIKey: "k", Server: "http://user:pw@pdns:8081"}, "credentials in the URL"},
		{Config{APIKey: "k", ClientCertFile: "c.pem"}, "must be set together"},
		{Config{APIKey: "k", CAFile: filepath.Join(dir, "missing.pem")}, "--tls-ca"},
		{Config{APIKey: "k", CAFile: keyFile}, "no PEM certificate"},
	} {
		if _, err := New(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.cfg, err, c.want)
		}
	}
}

// The API key appears in no error and no description, whatever goes wrong: wrong key (401), refused
// record (422), unknown server id (404), PowerDNS down, a bad key file.
func TestAPIKeyNeverInErrors(t *testing.T) {
	s := startServer(t)
	secret := s.pdns.APIKey
	var msgs []string
	collect := func(err error) {
		if err != nil {
			msgs = append(msgs, err.Error())
		}
	}
	good := &plan.Changes{Create: []*endpoint.Endpoint{a("www.example.com", "10.0.0.1")}}
	// The wrong key itself must not leak either.
	wrong, _ := New(Config{Server: s.pdns.APIURL, APIKey: secret + "-wrong"})
	_, err := wrong.Records(ctxT(t))
	collect(err)
	if err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("wrong key: %v", err)
	}
	collect(wrong.ApplyChanges(ctxT(t), good))
	badID, _ := New(Config{Server: s.pdns.APIURL, APIKey: secret, ServerID: "nope"})
	_, err = badID.Records(ctxT(t))
	collect(err)
	s.seed(t, "example.com", "taken.example.com", "A", 300, "10.0.0.1")
	collect(s.p.ApplyChanges(ctxT(t), &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.NewWithTTL("taken.example.com", endpoint.RecordTypeCNAME, 300, "lb.example.net")}}))
	s.pdns.Stop()
	collect(s.p.ApplyChanges(ctxT(t), good))
	_, err = s.p.Records(ctxT(t))
	collect(err)
	keyFile := filepath.Join(t.TempDir(), "key")
	_ = os.WriteFile(keyFile, []byte(secret), 0o600)
	_, err = New(Config{APIKey: secret, APIKeyFile: keyFile})
	collect(err)
	msgs = append(msgs, Config{APIKey: secret, Server: s.pdns.APIURL}.String())

	if len(msgs) != 8 {
		t.Fatalf("want 8 messages, got %d: %q", len(msgs), msgs)
	}
	for _, m := range msgs {
		if strings.Contains(m, secret) || strings.Contains(m, strings.TrimPrefix(secret, "testbed-")) {
			t.Errorf("API key in %q", m)
		}
	}
	t.Logf("checked:\n%s", strings.Join(msgs, "\n"))
}

// A TLS front (a Go reverse proxy that requires a client certificate) before the real pdns_server:
// with --tls-ca and the client certificate the provider works; without the CA it fails verification,
// unless --pdns-skip-tls-verify; without the client certificate the handshake is refused.
func TestTLSToPowerDNS(t *testing.T) {
	pd := testbed.StartPowerDNS(t, "example.com")
	dir := t.TempDir()
	ca, caKey := newCA(t, dir)
	serverCert := issue(t, dir, "server", ca, caKey, x509.ExtKeyUsageServerAuth)
	clientCert := issue(t, dir, "client", ca, caKey, x509.ExtKeyUsageClientAuth)
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	srvPair, err := tls.LoadX509KeyPair(serverCert+".pem", serverCert+".key")
	if err != nil {
		t.Fatal(err)
	}
	backend, _ := url.Parse(pd.APIURL)
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{
		Certificates: []tls.Certificate{srvPair}, ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12,
	})
	if err != nil {
		t.Fatal(err)
	}
	front := &http.Server{Handler: httputil.NewSingleHostReverseProxy(backend), ReadHeaderTimeout: 10 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	go func() { _ = front.Serve(l) }()
	t.Cleanup(func() { _ = front.Close() })
	server := "https://" + l.Addr().String()

	full := Config{Server: server, APIKey: pd.APIKey, CAFile: ca2file(t, dir, ca), ClientCertFile: clientCert + ".pem", ClientKeyFile: clientCert + ".key"}
	ok := func(cfg Config) error {
		p, err := New(cfg)
		if err != nil {
			return err
		}
		if err := p.ApplyChanges(ctxT(t), &plan.Changes{Create: []*endpoint.Endpoint{a("tls.example.com", "10.0.0.1")}}); err != nil {
			return err
		}
		_, err = p.Records(ctxT(t))
		return err
	}
	if err := ok(full); err != nil {
		t.Fatalf("CA and client certificate: %v", err)
	}
	noCA := full
	noCA.CAFile = ""
	var unknown x509.UnknownAuthorityError
	if err := ok(noCA); err == nil || !(errors.As(err, &unknown) || strings.Contains(err.Error(), "certificate")) {
		t.Fatalf("without --tls-ca: %v", err)
	}
	skip := noCA
	skip.SkipTLSVerify = true
	if err := ok(skip); err != nil {
		t.Fatalf("--pdns-skip-tls-verify: %v", err)
	}
	noClient := full
	noClient.ClientCertFile, noClient.ClientKeyFile = "", ""
	if err := ok(noClient); err == nil {
		t.Fatal("without a client certificate the front must refuse the handshake")
	}
}

func newCA(t *testing.T, dir string) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(der)
	return ca, key
}

func ca2file(t *testing.T, dir string, ca *x509.Certificate) string {
	p := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// issue writes name.pem and name.key signed by the CA, valid for 127.0.0.1.
func issue(t *testing.T, dir, name string, ca *x509.Certificate, caKey *ecdsa.PrivateKey, usage x509.ExtKeyUsage) string {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, ExtKeyUsage: []x509.ExtKeyUsage{usage}, KeyUsage: x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	base := filepath.Join(dir, name)
	if err := os.WriteFile(base+".pem", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(base+".key", pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	return base
}
