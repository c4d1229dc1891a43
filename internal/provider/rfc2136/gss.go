package rfc2136

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/bodgit/tsig"
	"github.com/bodgit/tsig/gss"
	krb5config "github.com/jcmturner/gokrb5/v8/config"
	"github.com/miekg/dns"
)

// EnvKerberosConfig names the krb5.conf the GSS-TSIG client reads, as for MIT Kerberos and gokrb5;
// DefaultKerberosConfig is read without it.
const (
	EnvKerberosConfig     = "KRB5_CONFIG"
	DefaultKerberosConfig = "/etc/krb5.conf"
)

// gssCreds are the validated GSS-TSIG (RFC 3645) settings: the Kerberos principal
// username@realm, its password or keytab, and the krb5.conf content.
type gssCreds struct {
	realm, username string
	password        string
	keytab          string // path; "" with a password
	krb5conf        string // content of the krb5.conf
	krb5path        string
}

func (g *gssCreds) principal() string { return g.username + "@" + g.realm }

// gssValidate checks the GSS-TSIG settings. The password is never quoted.
func (c Config) gssValidate() (*gssCreds, error) {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if c.Insecure {
		bad("--rfc2136-gss-tsig is set together with --rfc2136-insecure: choose one")
	}
	if c.TSIGKeyName != "" || c.TSIGSecret != "" {
		bad("--rfc2136-gss-tsig is set together with a TSIG key (--rfc2136-tsig-keyname/--rfc2136-tsig-secret): choose one (GSS-TSIG negotiates its key with Kerberos)")
	}
	if c.UseTLS {
		bad("--rfc2136-gss-tsig cannot be used with --rfc2136-use-tls: the TKEY negotiation of the GSS-TSIG library runs over plain TCP only")
	}
	g := &gssCreds{realm: strings.ToUpper(strings.TrimSpace(c.KerberosRealm)), username: strings.TrimSpace(c.KerberosUsername),
		password: c.KerberosPassword, keytab: strings.TrimSpace(c.KerberosKeytab)}
	if g.realm == "" {
		bad("--rfc2136-kerberos-realm: the Kerberos realm is required with --rfc2136-gss-tsig (the Active Directory domain, upper case)")
	}
	if g.username == "" {
		bad("--rfc2136-kerberos-username: the Kerberos user is required with --rfc2136-gss-tsig")
	} else if strings.Contains(g.username, "@") {
		bad("--rfc2136-kerberos-username: %q: give the user without @REALM (the realm is --rfc2136-kerberos-realm)", g.username)
	}
	switch {
	case g.password == "" && g.keytab == "":
		bad("--rfc2136-kerberos-password: the Kerberos password is required with --rfc2136-gss-tsig (or --rfc2136-kerberos-password-file, EXTERNAL_DNS_RFC2136_KERBEROS_PASSWORD, or --rfc2136-kerberos-keytab)")
	case g.password != "" && g.keytab != "":
		bad("--rfc2136-kerberos-keytab is set together with a Kerberos password: choose one")
	case g.keytab != "":
		if _, err := os.Stat(g.keytab); err != nil {
			bad("--rfc2136-kerberos-keytab %s: %v", g.keytab, unwrapPath(err))
		}
	}
	g.krb5path = c.KerberosConfig
	if g.krb5path == "" {
		g.krb5path = DefaultKerberosConfig
	}
	g.krb5path = strings.TrimPrefix(g.krb5path, "FILE:")
	raw, err := os.ReadFile(g.krb5path)
	if err != nil {
		bad("--rfc2136-gss-tsig: the Kerberos configuration %s cannot be read (%v): mount a krb5.conf there, or name it in %s", g.krb5path, unwrapPath(err), EnvKerberosConfig)
	} else if _, err := krb5config.NewFromString(string(raw)); err != nil {
		bad("--rfc2136-gss-tsig: the Kerberos configuration %s: %v", g.krb5path, err)
	}
	g.krb5conf = string(raw)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return g, nil
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// tkeyLifetime is the lifetime github.com/bodgit/tsig/gss asks for in its TKEY request; BIND grants it.
const tkeyLifetime = time.Hour

// gssSession is a GSS-TSIG context negotiated with one server.
type gssSession struct {
	client  *gss.Client
	keyName string
	renewAt time.Time
}

// gssKeys holds the provider's context per server. A context is negotiated (TKEY) on first use,
// again when 90% of its lifetime has passed, and again when the server no longer accepts it.
type gssKeys struct {
	creds   *gssCreds
	timeout time.Duration

	mu       sync.Mutex
	sessions map[string]*gssSession
	// negotiations counts the contexts negotiated, for tests.
	negotiations int
}

// signer is how a request is signed: a key name, an algorithm, and the TSIG provider that computes
// and checks the MACs.
type signer struct {
	name, alg string
	provider  dns.TsigProvider
}

// key returns the server's context, negotiating one when there is none, when it is due for renewal,
// or when renew is set (the server rejected the current one).
func (g *gssKeys) key(server string, renew bool) (signer, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.sessions == nil {
		g.sessions = map[string]*gssSession{}
	}
	s := g.sessions[server]
	if s != nil && !renew && time.Now().Before(s.renewAt) {
		return signer{name: s.keyName, alg: tsig.GSS, provider: gssVerifier{s.client}}, nil
	}
	if s != nil {
		_ = s.client.Close()
		delete(g.sessions, server)
	}
	client, err := gss.NewClient(&dns.Client{Net: "tcp", Timeout: g.timeout}, gss.WithConfig(g.creds.krb5conf))
	if err != nil {
		return signer{}, err
	}
	start := time.Now()
	var keyName string
	var expiry time.Time
	if g.creds.keytab != "" {
		keyName, expiry, err = client.NegotiateContextWithKeytab(server, g.creds.realm, g.creds.username, g.creds.keytab)
	} else {
		keyName, expiry, err = client.NegotiateContextWithCredentials(server, g.creds.realm, g.creds.username, g.creds.password)
	}
	if err != nil {
		_ = client.Close()
		return signer{}, g.negotiationError(server, err)
	}
	g.negotiations++
	// The context lasts as long as the ticket (as krb5.conf's ticket_lifetime says) and at most the
	// TKEY lifetime the library asks the server for.
	if limit := start.Add(tkeyLifetime); expiry.After(limit) {
		expiry = limit
	}
	s = &gssSession{client: client, keyName: keyName, renewAt: start.Add(expiry.Sub(start) * 9 / 10)}
	g.sessions[server] = s
	return signer{name: keyName, alg: tsig.GSS, provider: gssVerifier{client}}, nil
}

// negotiationError says which setting to check. The password never appears: the library's errors
// do not contain it.
func (g *gssKeys) negotiationError(server string, err error) error {
	host, _, _ := net.SplitHostPort(server)
	msg := err.Error()
	var hint string
	switch {
	case strings.Contains(msg, "KDC_ERR_PREAUTH_FAILED") || strings.Contains(msg, "KRB_AP_ERR_BAD_INTEGRITY") ||
		strings.Contains(msg, "Decrypting_Error") || strings.Contains(msg, "integrity verification"):
		hint = "the KDC rejected the credentials: check --rfc2136-kerberos-password (or the keytab) of " + g.creds.principal()
	case strings.Contains(msg, "KDC_ERR_C_PRINCIPAL_UNKNOWN"):
		hint = "the KDC does not know " + g.creds.principal() + ": check --rfc2136-kerberos-username and --rfc2136-kerberos-realm"
	case strings.Contains(msg, "KDC_ERR_S_PRINCIPAL_UNKNOWN"):
		hint = "the KDC has no service principal DNS/" + host + ": --rfc2136-host must be the server's host name as the realm knows it (not an address)"
	case strings.Contains(msg, "DNS error"):
		hint = "the server refused the TKEY negotiation: check that it accepts GSS-TSIG (BIND: tkey-gssapi-keytab) and knows DNS/" + host
	default:
		hint = "check the realm's KDC in " + g.creds.krb5path + " and the credentials of " + g.creds.principal()
	}
	return fmt.Errorf("GSS-TSIG negotiation with %s as %s failed: %s: %w", server, g.creds.principal(), hint, err)
}

// close ends every context.
func (g *gssKeys) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for server, s := range g.sessions {
		_ = s.client.Close()
		delete(g.sessions, server)
	}
}

func (g *gssKeys) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.negotiations
}

// gssVerifier makes the library's verification failures TSIG failures (dns.ErrSig), as miekg/dns
// reports them for HMAC keys, so the transport tells "the server answered, but not with a valid
// signature" (renegotiate) from "the server did not answer".
type gssVerifier struct{ c *gss.Client }

func (v gssVerifier) Generate(msg []byte, t *dns.TSIG) ([]byte, error) { return v.c.Generate(msg, t) }

func (v gssVerifier) Verify(msg []byte, t *dns.TSIG) error {
	if err := v.c.Verify(msg, t); err != nil {
		return fmt.Errorf("%w: %v", dns.ErrSig, err)
	}
	return nil
}
