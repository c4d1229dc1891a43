package emuproxy

import (
	"crypto/tls"
	"crypto/x509"
)

func parseLeaf(c tls.Certificate) (*x509.Certificate, error) {
	return x509.ParseCertificate(c.Certificate[0])
}

func verifyOpts(ca *CA) x509.VerifyOptions { return x509.VerifyOptions{Roots: ca.Pool()} }
