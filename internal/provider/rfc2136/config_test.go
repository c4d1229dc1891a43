package rfc2136

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
)

const testSecret = "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTEyMw=="

func validConfig() Config {
	return Config{Hosts: []string{"127.0.0.1"}, Zones: []string{"example.com"}, TSIGKeyName: "k",
		TSIGSecret: testSecret, TSIGSecretAlg: "hmac-sha256", TSIGAXFR: true}
}

func TestConfigErrorsNameTheFlag(t *testing.T) {
	for _, tc := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Hosts = nil }, "--rfc2136-host"},
		{func(c *Config) { c.Hosts = []string{"a b"} }, "--rfc2136-host"},
		{func(c *Config) { c.Port = 70000 }, "--rfc2136-port"},
		{func(c *Config) { c.Zones = nil }, "--rfc2136-zone"},
		{func(c *Config) { c.Zones = []string{"."} }, "--rfc2136-zone"},
		{func(c *Config) { c.TSIGKeyName = "" }, "--rfc2136-tsig-keyname"},
		{func(c *Config) { c.TSIGSecret = "" }, "--rfc2136-tsig-secret"},
		{func(c *Config) { c.TSIGSecret = "not base64!" + testSecret }, "not valid base64"},
		{func(c *Config) { c.TSIGSecretAlg = "hmac-md5" }, "--rfc2136-tsig-secret-alg"},
		{func(c *Config) { c.Insecure = true }, "--rfc2136-insecure"},
		{func(c *Config) { c.TSIGAXFR = false }, "--rfc2136-tsig-axfr"},
		{func(c *Config) { c.MinTTL = -time.Second }, "--rfc2136-min-ttl"},
		{func(c *Config) { c.BatchChangeSize = -1 }, "--rfc2136-batch-change-size"},
		{func(c *Config) { c.SkipTLSVerify = true }, "--rfc2136-use-tls"},
		{func(c *Config) { c.UseTLS, c.TLSCAFile = true, "/nonexistent/ca.pem" }, "--tls-ca"},
		{func(c *Config) { c.UseTLS, c.TLSClientCert = true, "/x.pem" }, "--tls-client-cert-key"},
	} {
		c := validConfig()
		tc.edit(&c)
		_, err := New(c)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: want an error naming %q, got %v", c, tc.want, err)
			continue
		}
		if strings.Contains(err.Error(), testSecret) {
			t.Errorf("error shows the secret: %v", err)
		}
	}
}

func TestConfigDefaultsAndForms(t *testing.T) {
	for alg, want := range map[string]string{"hmac-sha1": dns.HmacSHA1, "HMAC-SHA224": dns.HmacSHA224, "hmac-sha256.": dns.HmacSHA256, "hmac-sha384": dns.HmacSHA384, "hmac-sha512": dns.HmacSHA512} {
		c := validConfig()
		c.TSIGSecretAlg = alg
		p, err := New(c)
		if err != nil || p.s.key.alg != want {
			t.Fatalf("%s: %v", alg, err)
		}
	}
	c := validConfig()
	c.Hosts = []string{"ns1.example.net", "192.0.2.1:5353", "[2001:db8::1]", "2001:db8::2"}
	c.Zones = []string{"Example.COM.", "sub.example.com", "example.com"}
	c.MinTTL = 10 * time.Minute
	p, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.s.servers, " "); got != "ns1.example.net:53 192.0.2.1:5353 [2001:db8::1]:53 [2001:db8::2]:53" {
		t.Errorf("servers %s", got)
	}
	if got := strings.Join(p.s.zones, " "); got != "sub.example.com. example.com." {
		t.Errorf("zones %s (most specific first, deduplicated)", got)
	}
	if p.s.batch != DefaultBatchChangeSize || p.s.key.name != "k." || p.s.tls != nil {
		t.Errorf("defaults: %+v", p.s)
	}
	if p.Capabilities().DefaultTTL != 600 {
		t.Errorf("MinTTL above the default TTL is the default: %d", p.Capabilities().DefaultTTL)
	}
	c.Insecure, c.TSIGKeyName, c.TSIGSecret, c.TSIGSecretAlg = true, "", "", ""
	if p, err := New(c); err != nil || p.s.key != nil {
		t.Fatalf("insecure: %v", err)
	}
}

func TestConfigNeverPrintsTheSecret(t *testing.T) {
	c := validConfig()
	for _, s := range []string{c.String(), fmt.Sprintf("%v", c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c)} {
		if strings.Contains(s, testSecret) || !strings.Contains(s, "<redacted>") {
			t.Errorf("%s", s)
		}
	}
}

// The TLS settings: port 853 by default, ALPN "dot", the CA file as the only roots, the client
// certificate, the server name per host, and the verification switch.
func TestTLSConfig(t *testing.T) {
	dir := t.TempDir()
	caFile, certFile, keyFile := writeCert(t, dir)
	c := validConfig()
	c.Hosts = []string{"ns1.example.net", "192.0.2.1"}
	c.UseTLS, c.TLSCAFile, c.TLSClientCert, c.TLSClientKey = true, caFile, certFile, keyFile
	p, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	if p.s.servers[0] != "ns1.example.net:853" {
		t.Errorf("TLS default port: %s", p.s.servers[0])
	}
	tc := forServer(p.s.tls, p.s.servers[0])
	if tc.ServerName != "ns1.example.net" || tc.InsecureSkipVerify || tc.RootCAs == nil || len(tc.Certificates) != 1 || tc.NextProtos[0] != "dot" {
		t.Errorf("tls config %+v", tc)
	}
	if forServer(p.s.tls, p.s.servers[1]).ServerName != "192.0.2.1" {
		t.Error("server name of an address")
	}
	if cl := p.client(p.s.servers[0]); cl.Net != "tcp-tls" || cl.TLSConfig.ServerName != "ns1.example.net" {
		t.Errorf("client %s %v", cl.Net, cl.TLSConfig)
	}
	c.SkipTLSVerify = true
	p, _ = New(c)
	if !p.s.tls.InsecureSkipVerify {
		t.Error("skip verify")
	}
	if err := os.WriteFile(caFile, []byte("not pem"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := New(c); err == nil || !strings.Contains(err.Error(), "no PEM certificate") {
		t.Errorf("bad CA file: %v", err)
	}
}

func writeCert(t *testing.T, dir string) (ca, cert, key string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalECPrivateKey(k)
	cert = filepath.Join(dir, "cert.pem")
	key = filepath.Join(dir, "key.pem")
	ca = filepath.Join(dir, "ca.pem")
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	for f, b := range map[string][]byte{cert: certPEM, ca: certPEM, key: pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})} {
		if err := os.WriteFile(f, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return ca, cert, key
}

func TestLoadTSIGSecret(t *testing.T) {
	dir := t.TempDir()
	bare := filepath.Join(dir, "secret")
	stmt := filepath.Join(dir, "tsig.key")
	bad := filepath.Join(dir, "bad")
	_ = os.WriteFile(bare, []byte(testSecret+"\n"), 0o600)
	_ = os.WriteFile(stmt, []byte("key \"zk\" {\n\talgorithm hmac-sha256;\n\tsecret \""+testSecret+"\";\n};\n"), 0o600)
	_ = os.WriteFile(bad, []byte("hunter2!!"), 0o600)
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == EnvTSIGSecret {
				return v
			}
			return ""
		}
	}
	for _, tc := range []struct {
		value, file string
		getenv      func(string) string
		want, err   string
	}{
		{value: testSecret, want: testSecret},
		{getenv: env(testSecret), want: testSecret},
		{file: bare, want: testSecret},
		{file: stmt, want: testSecret},
		{value: testSecret, file: bare, err: "choose one"},
		{getenv: env(testSecret), file: bare, err: "choose one"},
		{file: filepath.Join(dir, "missing"), err: "no such file"},
		{file: bad, err: "not valid base64"},
	} {
		got, err := LoadTSIGSecret(tc.value, tc.file, tc.getenv)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), testSecret) {
				t.Errorf("%+v: want error %q without the secret, got %v", tc, tc.err, err)
			}
		case err != nil || got != tc.want:
			t.Errorf("%+v: got %q, %v", tc, got, err)
		}
	}
}
