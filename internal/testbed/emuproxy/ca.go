package emuproxy

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"sync"
	"time"
)

// Host names of the providers' APIs, for certificates and routes.
const (
	GoogleDNSHost   = "dns.googleapis.com"
	GoogleOAuthHost = "oauth2.googleapis.com"
	AzureARMHost    = "management.azure.com"
	AzureLoginHost  = "login.microsoftonline.com"
)

// certLifetime is how long the CA and its certificates are valid: a test's lifetime, with room for
// clock skew.
const certLifetime = 24 * time.Hour

// CA is a throwaway certificate authority for one test: clients trust it through SSL_CERT_FILE (Go,
// and so external-dns, reads it on Linux) or through Pool.
type CA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte

	mu     sync.Mutex
	serial int64
}

// NewCA makes a CA with a fresh key.
func NewCA() (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "zonekeeper emulator test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(certLifetime), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &CA{cert: cert, key: key, serial: 1, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}, nil
}

// PEM is the CA certificate, PEM-encoded.
func (ca *CA) PEM() []byte { return append([]byte(nil), ca.pem...) }

// WriteFile writes the CA certificate to path, for SSL_CERT_FILE.
func (ca *CA) WriteFile(path string) error { return os.WriteFile(path, ca.pem, 0o644) }

// Pool is a certificate pool holding only the CA.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.cert)
	return p
}

// Certificate returns a server certificate the CA signs for hosts (names, or IP addresses).
func (ca *CA) Certificate(hosts ...string) (tls.Certificate, error) {
	if len(hosts) == 0 {
		return tls.Certificate{}, fmt.Errorf("a certificate needs at least one host name")
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	ca.mu.Lock()
	ca.serial++
	serial := ca.serial
	ca.mu.Unlock()
	now := time.Now()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: hosts[0]},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(certLifetime),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

// ServerTLS is a server TLS configuration with the CA's certificate for hosts.
func (ca *CA) ServerTLS(hosts ...string) (*tls.Config, error) {
	c, err := ca.Certificate(hosts...)
	if err != nil {
		return nil, err
	}
	return &tls.Config{Certificates: []tls.Certificate{c}, MinVersion: tls.VersionTLS12}, nil
}
