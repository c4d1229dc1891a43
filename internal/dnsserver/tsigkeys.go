package dnsserver

import (
	"encoding/base64"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/miekg/dns"
)

// keyClause matches one BIND key clause as tsig-keygen prints it:
//
//	key "xfr-key" {
//		algorithm hmac-sha256;
//		secret "base64==";
//	};
var keyClause = regexp.MustCompile(`(?s)key\s+"?([^"\s{]+)"?\s*\{(.*?)\}\s*;`)

var keySecret = regexp.MustCompile(`secret\s+"([^"]+)"\s*;`)

var keyAlgorithm = regexp.MustCompile(`algorithm\s+"?([A-Za-z0-9.-]+)"?\s*;`)

// ReadTSIGKeyAlgorithms returns key name → algorithm (a miekg/dns name such as "hmac-sha256.") of the
// keys in a BIND key file, for signing what the server sends itself (NOTIFY). A key without an
// algorithm line is hmac-sha256, tsig-keygen's default; BIND's short name hmac-md5 is
// hmac-md5.sig-alg.reg.int. Loading never fails on the algorithm: only keys that sign NOTIFYs are
// checked (signingAlgorithm). miekg/dns no longer signs or verifies HMAC-MD5, so an MD5 key can
// neither sign a NOTIFY nor authorise a transfer.
func ReadTSIGKeyAlgorithms(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("TSIG key file %s: %v", path, err)
	}
	out := map[string]string{}
	for _, m := range keyClause.FindAllStringSubmatch(string(b), -1) {
		alg := dns.HmacSHA256
		if a := keyAlgorithm.FindStringSubmatch(m[2]); a != nil {
			alg = dns.CanonicalName(strings.ToLower(a[1]))
			if alg == "hmac-md5." {
				alg = dns.HmacMD5
			}
		}
		out[dns.CanonicalName(m[1])] = alg
	}
	return out, nil
}

// signingAlgorithm reports whether miekg/dns can sign with the algorithm (HMAC-MD5 it refuses).
func signingAlgorithm(alg string) bool {
	switch alg {
	case dns.HmacSHA1, dns.HmacSHA224, dns.HmacSHA256, dns.HmacSHA384, dns.HmacSHA512:
		return true
	}
	return false
}

// ReadTSIGKeyFile reads TSIG keys from a file in BIND's key format (the output of tsig-keygen), so
// the same file can configure the server and its secondaries. It returns key name → base64 secret;
// the algorithm is the one each request names.
func ReadTSIGKeyFile(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("TSIG key file %s: %v", path, err)
	}
	out := map[string]string{}
	for _, m := range keyClause.FindAllStringSubmatch(string(b), -1) {
		name := dns.CanonicalName(m[1])
		s := keySecret.FindStringSubmatch(m[2])
		if s == nil {
			return nil, fmt.Errorf("TSIG key file %s: key %s has no secret", path, strings.TrimSuffix(name, "."))
		}
		if _, err := base64.StdEncoding.DecodeString(s[1]); err != nil {
			return nil, fmt.Errorf("TSIG key file %s: key %s: the secret is not base64", path, strings.TrimSuffix(name, "."))
		}
		out[name] = s[1]
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("TSIG key file %s: no key clause found", path)
	}
	return out, nil
}
