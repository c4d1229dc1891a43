package rfc2136

import (
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/miekg/dns"
)

// Defaults, as in external-dns where it has one.
const (
	DefaultPort            = 53
	DefaultTLSPort         = 853
	DefaultBatchChangeSize = 50
	// DefaultTTL is written for a record set whose endpoint has no TTL (unless MinTTL is higher).
	// external-dns writes TTL 0 instead (records nobody may cache); see README.
	DefaultTTL = 300
	// DefaultTimeout bounds one UPDATE exchange or one zone transfer.
	DefaultTimeout = 10 * time.Second
)

// Config configures one provider instance. The fields mirror external-dns's --rfc2136-* flags. Nothing
// in the package is global: several instances (one per BIND view, each with its own key) can run side
// by side.
type Config struct {
	// Hosts are the servers (--rfc2136-host, repeatable), "host" or "host:port". Every request goes to
	// the first one that answers; the others are tried in order when a connection fails.
	Hosts []string
	// Port is used for hosts given without one (--rfc2136-port; 53, or 853 with UseTLS, when zero).
	Port int
	// Zones the provider manages (--rfc2136-zone, repeatable). A name belongs to the most specific zone
	// it is in, on label boundaries; a change for a name in no zone is rejected.
	Zones []string
	// TSIGKeyName, TSIGSecret (base64) and TSIGSecretAlg sign every request (--rfc2136-tsig-keyname,
	// --rfc2136-tsig-secret, --rfc2136-tsig-secret-alg). See LoadTSIGSecret for the file and
	// environment forms of the secret. The secret never appears in logs or errors.
	TSIGKeyName, TSIGSecret, TSIGSecretAlg string
	// TSIGAXFR enables reading the zones by AXFR (--rfc2136-tsig-axfr, also --rfc2136-axfr). It is
	// required: without reads the provider cannot see the records it owns (see README).
	TSIGAXFR bool
	// MinTTL raises every TTL below it, and is the TTL of record sets without one when above
	// DefaultTTL (--rfc2136-min-ttl).
	MinTTL time.Duration
	// BatchChangeSize is the number of record-set changes per UPDATE message
	// (--rfc2136-batch-change-size, DefaultBatchChangeSize when zero).
	BatchChangeSize int
	// Insecure sends unsigned requests (--rfc2136-insecure).
	Insecure bool
	// UseTLS talks DNS over TLS (--rfc2136-use-tls) with the CA, client certificate and key files
	// (--tls-ca, --tls-client-cert, --tls-client-cert-key); SkipTLSVerify (--rfc2136-skip-tls-verify)
	// accepts any server certificate.
	UseTLS                                 bool
	SkipTLSVerify                          bool
	TLSCAFile, TLSClientCert, TLSClientKey string
	// GSSTSIG signs every request with GSS-TSIG (RFC 3645, --rfc2136-gss-tsig), as Active Directory
	// DNS requires: a context is negotiated per server by TKEY with a Kerberos ticket of
	// KerberosUsername@KerberosRealm (--rfc2136-kerberos-username, --rfc2136-kerberos-realm, upper-cased
	// as external-dns does), who logs in with KerberosPassword (--rfc2136-kerberos-password) or the
	// keys in KerberosKeytab (--rfc2136-kerberos-keytab). KerberosConfig is the krb5.conf to read
	// (DefaultKerberosConfig when empty). The password never appears in logs or errors.
	GSSTSIG                                           bool
	KerberosRealm, KerberosUsername, KerberosPassword string
	KerberosKeytab, KerberosConfig                    string
	// Timeout bounds one exchange or transfer (DefaultTimeout when zero).
	Timeout time.Duration
}

// String describes the configuration without the secret and the Kerberos password.
func (c Config) String() string {
	secret := ""
	if c.TSIGSecret != "" {
		secret = "<redacted>"
	}
	gss := ""
	if c.GSSTSIG {
		password := ""
		if c.KerberosPassword != "" {
			password = "<redacted>"
		}
		gss = fmt.Sprintf(" gss-tsig=%s@%s password=%s keytab=%q", c.KerberosUsername, strings.ToUpper(c.KerberosRealm), password, c.KerberosKeytab)
	}
	return fmt.Sprintf("rfc2136{hosts=%s port=%d zones=%s key=%q alg=%q secret=%s axfr=%t insecure=%t tls=%t%s}",
		strings.Join(c.Hosts, ","), c.Port, strings.Join(c.Zones, ","), c.TSIGKeyName, c.TSIGSecretAlg, secret,
		c.TSIGAXFR, c.Insecure, c.UseTLS, gss)
}

// GoString keeps %#v from printing the secret too.
func (c Config) GoString() string { return c.String() }

// tsigAlgorithms maps the flag values to miekg/dns algorithm names.
var tsigAlgorithms = map[string]string{
	"hmac-sha1":   dns.HmacSHA1,
	"hmac-sha224": dns.HmacSHA224,
	"hmac-sha256": dns.HmacSHA256,
	"hmac-sha384": dns.HmacSHA384,
	"hmac-sha512": dns.HmacSHA512,
}

// tsigKey is a validated key: FQDN name, miekg algorithm, base64 secret.
type tsigKey struct {
	name, alg, secret string
}

// settings is a validated Config.
type settings struct {
	servers []string // host:port
	zones   zoneSet
	key     *tsigKey // nil when insecure or with GSS-TSIG
	gss     *gssCreds
	minTTL  uint32
	batch   int
	timeout time.Duration
	tls     *tls.Config // nil without UseTLS; ServerName is set per server
}

// validate checks the configuration and fills defaults. Errors name the flag.
func (c Config) validate() (settings, error) {
	var s settings
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	port := c.Port
	if port == 0 {
		port = DefaultPort
		if c.UseTLS {
			port = DefaultTLSPort
		}
	}
	if port < 1 || port > 65535 {
		bad("--rfc2136-port: %d is not a port number", c.Port)
	}
	if len(c.Hosts) == 0 {
		bad("--rfc2136-host: no server given")
	}
	for _, h := range c.Hosts {
		addr, err := hostPort(strings.TrimSpace(h), port)
		if err != nil {
			bad("--rfc2136-host: %v", err)
			continue
		}
		s.servers = append(s.servers, addr)
	}

	zones, err := newZoneSet(c.Zones)
	if err != nil {
		bad("--rfc2136-zone: %v", err)
	}
	s.zones = zones

	switch {
	case c.GSSTSIG:
		creds, err := c.gssValidate()
		if err != nil {
			errs = append(errs, err)
		}
		s.gss = creds
	case c.KerberosRealm != "" || c.KerberosUsername != "" || c.KerberosPassword != "" || c.KerberosKeytab != "":
		bad("--rfc2136-kerberos-realm, --rfc2136-kerberos-username, --rfc2136-kerberos-password and --rfc2136-kerberos-keytab need --rfc2136-gss-tsig")
	case c.Insecure:
		if c.TSIGKeyName != "" || c.TSIGSecret != "" {
			bad("--rfc2136-insecure is set together with a TSIG key (--rfc2136-tsig-keyname/--rfc2136-tsig-secret): choose one")
		}
	default:
		key, err := c.key()
		if err != nil {
			errs = append(errs, err)
		}
		s.key = key
	}
	if !c.TSIGAXFR {
		bad("--rfc2136-tsig-axfr (or --rfc2136-axfr) is required: without a zone transfer the provider cannot " +
			"see the records it owns, so it could only add records and never update or delete them " +
			"(external-dns's behaviour); allow the transfer for the key in BIND (allow-transfer { key NAME; })")
	}
	if c.MinTTL < 0 {
		bad("--rfc2136-min-ttl: %s is negative", c.MinTTL)
	}
	s.minTTL = uint32(c.MinTTL / time.Second)
	s.batch = c.BatchChangeSize
	if s.batch == 0 {
		s.batch = DefaultBatchChangeSize
	}
	if s.batch < 0 {
		bad("--rfc2136-batch-change-size: %d is negative", c.BatchChangeSize)
	}
	s.timeout = c.Timeout
	if s.timeout <= 0 {
		s.timeout = DefaultTimeout
	}
	if c.SkipTLSVerify && !c.UseTLS {
		bad("--rfc2136-skip-tls-verify needs --rfc2136-use-tls")
	}
	if c.UseTLS {
		tc, err := c.tlsConfig()
		if err != nil {
			errs = append(errs, err)
		}
		s.tls = tc
	}
	return s, errors.Join(errs...)
}

// key validates the TSIG settings. The secret is checked but never quoted.
func (c Config) key() (*tsigKey, error) {
	var errs []error
	name := strings.TrimSpace(c.TSIGKeyName)
	if name == "" {
		errs = append(errs, errors.New("--rfc2136-tsig-keyname: a TSIG key name is required (or --rfc2136-insecure)"))
	} else if _, ok := dns.IsDomainName(name); !ok {
		errs = append(errs, fmt.Errorf("--rfc2136-tsig-keyname: %q is not a valid key name", name))
	}
	secret := strings.TrimSpace(c.TSIGSecret)
	if secret == "" {
		errs = append(errs, errors.New("--rfc2136-tsig-secret: a TSIG secret is required (or --rfc2136-tsig-secret-file, or --rfc2136-insecure)"))
	} else if _, err := base64.StdEncoding.DecodeString(secret); err != nil {
		errs = append(errs, errors.New("--rfc2136-tsig-secret: not valid base64 (the value is not shown)"))
	}
	algName := strings.ToLower(strings.TrimSuffix(strings.TrimSpace(c.TSIGSecretAlg), "."))
	alg, ok := tsigAlgorithms[algName]
	if !ok {
		errs = append(errs, fmt.Errorf("--rfc2136-tsig-secret-alg: %q is not one of hmac-sha1, hmac-sha224, hmac-sha256, hmac-sha384, hmac-sha512", c.TSIGSecretAlg))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &tsigKey{name: strings.ToLower(dns.Fqdn(name)), alg: alg, secret: secret}, nil
}

// hostPort turns "host" or "host:port" (IPv6 in brackets) into host:port.
func hostPort(h string, port int) (string, error) {
	if h == "" {
		return "", errors.New("empty host")
	}
	if host, p, err := net.SplitHostPort(h); err == nil {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 || host == "" {
			return "", fmt.Errorf("%q: bad host:port", h)
		}
		return h, nil
	}
	if strings.Contains(h, "/") || strings.Contains(h, " ") {
		return "", fmt.Errorf("%q is not a host name or address", h)
	}
	return net.JoinHostPort(strings.Trim(h, "[]"), strconv.Itoa(port)), nil
}
