package azurednsemu

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
	"time"
)

// DefaultTLSHosts are the names the emulator's generated certificate
// covers: loopback, and the Azure public cloud hosts an unmodified client
// reaches through a CONNECT proxy (instance discovery always goes to
// login.microsoftonline.com).
var DefaultTLSHosts = []string{"127.0.0.1", "::1", "localhost", "management.azure.com", "login.microsoftonline.com"}

// TestCA is a throwaway certificate authority and one server certificate it
// signed, for serving the emulator over TLS in tests.
type TestCA struct {
	// CertPEM is the CA certificate, for SSL_CERT_FILE or a CertPool.
	CertPEM []byte
	// Pool trusts the CA.
	Pool *x509.CertPool
	// Server is the leaf certificate for the given hosts.
	Server tls.Certificate
}

// NewTestCA creates a CA valid for a day and a server certificate for
// hosts (IP addresses or DNS names).
func NewTestCA(hosts ...string) (*TestCA, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "azurednsemu test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	leaf := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "azurednsemu"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			leaf.IPAddresses = append(leaf.IPAddresses, ip)
		} else if h != "" {
			leaf.DNSNames = append(leaf.DNSNames, h)
		} else {
			return nil, fmt.Errorf("test CA: empty host name")
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, leaf, caCert, &key.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(caCert)
	return &TestCA{
		CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		Pool:    pool,
		Server:  tls.Certificate{Certificate: [][]byte{der, caDER}, PrivateKey: key, Leaf: nil},
	}, nil
}

// ServerTLS is the tls.Config to pass to ListenAndServe.
func (ca *TestCA) ServerTLS() *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{ca.Server}, MinVersion: tls.VersionTLS12}
}
