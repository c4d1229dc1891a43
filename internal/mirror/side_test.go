package mirror

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// pki is a throw-away CA with a server certificate for 127.0.0.1 / etcd.test and a client certificate.
type pki struct {
	dir                                              string
	ca, serverCert, serverKey, clientCert, clientKey string
}

func newPKI(t *testing.T) pki {
	t.Helper()
	dir := t.TempDir()
	p := pki{dir: dir, ca: filepath.Join(dir, "ca.pem"),
		serverCert: filepath.Join(dir, "server.pem"), serverKey: filepath.Join(dir, "server-key.pem"),
		clientCert: filepath.Join(dir, "client.pem"), clientKey: filepath.Join(dir, "client-key.pem")}
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	writePEM(t, p.ca, "CERTIFICATE", caDER)
	issue := func(serial int64, cn string, usage x509.ExtKeyUsage, certFile, keyFile string) {
		key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: cn},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
			DNSNames: []string{"etcd.test"}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		writePEM(t, certFile, "CERTIFICATE", der)
		kb, _ := x509.MarshalECPrivateKey(key)
		writePEM(t, keyFile, "EC PRIVATE KEY", kb)
	}
	issue(2, "etcd.test", x509.ExtKeyUsageServerAuth, p.serverCert, p.serverKey)
	issue(3, "mirror", x509.ExtKeyUsageClientAuth, p.clientCert, p.clientKey)
	return p
}

func writePEM(t *testing.T, path, kind string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestTLSConfig(t *testing.T) {
	p := newPKI(t)
	s := Side{Name: "dst", Endpoints: []string{"https://etcd:2379"}, CAFile: p.ca, CertFile: p.clientCert, KeyFile: p.clientKey, ServerName: "etcd.test"}
	tc, err := s.TLSConfig()
	if err != nil {
		t.Fatal(err)
	}
	if tc.MinVersion != tls.VersionTLS12 || tc.RootCAs == nil || len(tc.Certificates) != 1 || tc.ServerName != "etcd.test" || tc.InsecureSkipVerify {
		t.Errorf("tls config %+v", tc)
	}
	// http endpoints: no TLS.
	if tc, err := (Side{Name: "src", Endpoints: []string{"http://etcd:2379"}}).TLSConfig(); err != nil || tc != nil {
		t.Errorf("http: %v %v", tc, err)
	}
	// host:port with TLS settings: TLS, system roots when no CA.
	tc, err = Side{Name: "src", Endpoints: []string{"etcd:2379"}, Insecure: true}.TLSConfig()
	if err != nil || tc == nil || !tc.InsecureSkipVerify || tc.RootCAs != nil {
		t.Errorf("scheme-less with --src-tls-insecure: %+v %v", tc, err)
	}
	bad := []struct {
		s    Side
		want string
	}{
		{Side{Name: "src", Endpoints: []string{"https://e:1"}, CAFile: filepath.Join(p.dir, "none.pem")}, "--src-ca-file"},
		{Side{Name: "src", Endpoints: []string{"https://e:1"}, CAFile: p.clientKey}, "no PEM certificate found"},
		{Side{Name: "dst", Endpoints: []string{"https://e:1"}, CertFile: p.clientCert, KeyFile: p.serverCert}, "--dst-cert-file/--dst-key-file"},
		{Side{Name: "dst", Endpoints: []string{"https://e:1"}, CertFile: p.clientCert}, "must be set together"},
	}
	for _, b := range bad {
		if _, err := b.s.TLSConfig(); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%+v: error %v, want %q", b.s, err, b.want)
		}
	}
}

// A real TLS etcd with client certificate authentication on the destination side.
func TestMirrorToTLSEtcd(t *testing.T) {
	p := newPKI(t)
	src := testbed.StartEtcd(t)
	dst := testbed.StartEtcdTLS(t, testbed.EtcdTLS{CertFile: p.serverCert, KeyFile: p.serverKey, CAFile: p.ca})
	putKV(t, client(t, src.Endpoint), "/skydns/com/example/www/1", aValue)
	base := []string{"--src-endpoints=" + src.Endpoint, "--dst-endpoints=" + dst.Endpoint, "-s=/skydns", "-d=/external", "--etcd-timeout=3s"}

	code, log := runOnce(t, append(base, "--dst-ca-file="+p.ca, "--dst-cert-file="+p.clientCert, "--dst-key-file="+p.clientKey)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, log)
	}
	dc := tlsClient(t, dst.Endpoint, p)
	if got := getPrefix(t, dc, "/external/"); got["/external/com/example/www/1"] != aValue {
		t.Fatalf("destination %v", got)
	}
	// Without the CA the server certificate is refused; without the client certificate the server
	// refuses the mirror.
	if code, log := runOnce(t, append(base, "--dst-cert-file="+p.clientCert, "--dst-key-file="+p.clientKey)...); code != 1 {
		t.Errorf("no CA: exit %d\n%s", code, log)
	}
	if code, log := runOnce(t, append(base, "--dst-cafile="+p.ca)...); code != 1 {
		t.Errorf("no client certificate: exit %d\n%s", code, log)
	}
}
