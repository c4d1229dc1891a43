package rfc2136

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/flagvalue"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// RFC2136Flags are --provider=rfc2136's settings, with external-dns's flag names. --tls-ca,
// --tls-client-cert and --tls-client-cert-key are shared with other providers (provider.Env).
type RFC2136Flags struct {
	RFC2136Hosts           []string
	RFC2136Port            int
	RFC2136Zones           []string
	RFC2136Insecure        bool
	RFC2136TSIGKeyName     string
	RFC2136TSIGSecret      string
	RFC2136TSIGSecretFile  string
	RFC2136TSIGSecretAlg   string
	RFC2136TSIGAXFR        bool
	RFC2136MinTTL          time.Duration
	RFC2136BatchChangeSize int
	RFC2136UseTLS          bool
	RFC2136SkipTLSVerify   bool
	// GSS-TSIG (Active Directory): external-dns's four flags, plus a password file and a keytab.
	RFC2136GSSTSIG              bool
	RFC2136KerberosRealm        string
	RFC2136KerberosUsername     string
	RFC2136KerberosPassword     string
	RFC2136KerberosPasswordFile string
	RFC2136KerberosKeytab       string
	// ViewTSIGKeyName and ViewTSIGSecretFile are --view-rfc2136-tsig-keyname=VIEW=KEY and
	// --view-rfc2136-tsig-secret-file=VIEW=FILE: BIND selects a view by the key that signs an update,
	// so each view has its own.
	ViewTSIGKeyName    []string
	ViewTSIGSecretFile []string
}

// Kind is --provider=rfc2136.
func (s *RFC2136Flags) Kind() provider.Kind {
	return provider.Kind{
		Name: "rfc2136",
		Defaults: func() {
			*s = RFC2136Flags{RFC2136BatchChangeSize: 50, RFC2136TSIGSecretAlg: "hmac-sha256", RFC2136TSIGAXFR: true}
		},
		Flags: s.bind,
		Check: func() []error {
			if !s.RFC2136TSIGAXFR {
				// It used to be accepted and overridden: a setting zonekeeper does not honour is refused.
				return []error{errors.New("--rfc2136-tsig-axfr=false (or --rfc2136-axfr=false): zonekeeper always reads its zones by AXFR, without which it could not update or delete records correctly; allow the transfer to its TSIG key and drop the flag")}
			}
			return nil
		},
		ViewOptions: []provider.ViewOption{
			{Flag: "view-rfc2136-tsig-keyname", Values: &s.ViewTSIGKeyName},
			{Flag: "view-rfc2136-tsig-secret-file", Values: &s.ViewTSIGSecretFile},
		},
		Zones: func() []string { return s.RFC2136Zones },
		New:   s.start,
	}
}

func (s *RFC2136Flags) bind(fs *flag.FlagSet) {
	flagvalue.BindList(fs, &s.RFC2136Hosts, "rfc2136-host", "DNS server taking RFC 2136 updates (repeatable; tried in order)")
	fs.IntVar(&s.RFC2136Port, "rfc2136-port", s.RFC2136Port, "its port (default 53, or 853 with --rfc2136-use-tls)")
	flagvalue.BindList(fs, &s.RFC2136Zones, "rfc2136-zone", "zone to manage (repeatable)")
	fs.BoolVar(&s.RFC2136Insecure, "rfc2136-insecure", s.RFC2136Insecure, "send updates and transfers without TSIG")
	fs.StringVar(&s.RFC2136TSIGKeyName, "rfc2136-tsig-keyname", s.RFC2136TSIGKeyName, "TSIG key name")
	fs.StringVar(&s.RFC2136TSIGSecret, "rfc2136-tsig-secret", s.RFC2136TSIGSecret, "TSIG secret, base64 (prefer --rfc2136-tsig-secret-file or EXTERNAL_DNS_RFC2136_TSIG_SECRET)")
	fs.StringVar(&s.RFC2136TSIGSecretFile, "rfc2136-tsig-secret-file", s.RFC2136TSIGSecretFile, "file holding the TSIG secret, or a tsig-keygen key statement")
	fs.StringVar(&s.RFC2136TSIGSecretAlg, "rfc2136-tsig-secret-alg", s.RFC2136TSIGSecretAlg, "hmac-sha1, hmac-sha224, hmac-sha256, hmac-sha384 or hmac-sha512")
	fs.BoolVar(&s.RFC2136TSIGAXFR, "rfc2136-tsig-axfr", s.RFC2136TSIGAXFR, "read zones by AXFR: always on (zonekeeper needs the zone to update and delete correctly); =false is refused")
	fs.BoolVar(&s.RFC2136TSIGAXFR, "rfc2136-axfr", s.RFC2136TSIGAXFR, "alias of --rfc2136-tsig-axfr")
	fs.DurationVar(&s.RFC2136MinTTL, "rfc2136-min-ttl", s.RFC2136MinTTL, "lowest TTL written")
	fs.IntVar(&s.RFC2136BatchChangeSize, "rfc2136-batch-change-size", s.RFC2136BatchChangeSize, "record set changes per UPDATE message")
	fs.BoolVar(&s.RFC2136UseTLS, "rfc2136-use-tls", s.RFC2136UseTLS, "send updates and transfers over DNS over TLS")
	fs.BoolVar(&s.RFC2136SkipTLSVerify, "rfc2136-skip-tls-verify", s.RFC2136SkipTLSVerify, "do not verify the server certificate")
	fs.BoolVar(&s.RFC2136GSSTSIG, "rfc2136-gss-tsig", s.RFC2136GSSTSIG, "sign with GSS-TSIG (RFC 3645, Kerberos), as Active Directory DNS requires; krb5.conf from KRB5_CONFIG or /etc/krb5.conf")
	fs.StringVar(&s.RFC2136KerberosRealm, "rfc2136-kerberos-realm", s.RFC2136KerberosRealm, "Kerberos realm of the GSS-TSIG user (the AD domain; upper-cased)")
	fs.StringVar(&s.RFC2136KerberosUsername, "rfc2136-kerberos-username", s.RFC2136KerberosUsername, "Kerberos user for GSS-TSIG, without @REALM")
	fs.StringVar(&s.RFC2136KerberosPassword, "rfc2136-kerberos-password", s.RFC2136KerberosPassword, "its password (prefer --rfc2136-kerberos-password-file or EXTERNAL_DNS_RFC2136_KERBEROS_PASSWORD)")
	fs.StringVar(&s.RFC2136KerberosPasswordFile, "rfc2136-kerberos-password-file", s.RFC2136KerberosPasswordFile, "file holding the Kerberos password (a mounted Secret)")
	fs.StringVar(&s.RFC2136KerberosKeytab, "rfc2136-kerberos-keytab", s.RFC2136KerberosKeytab, "keytab file with the user's keys, instead of a password (a mounted Secret)")
	flagvalue.BindList(fs, &s.ViewTSIGKeyName, "view-rfc2136-tsig-keyname", "NAME=KEY: TSIG key the rfc2136 provider signs the view's updates with (BIND views selected by key)")
	flagvalue.BindList(fs, &s.ViewTSIGSecretFile, "view-rfc2136-tsig-secret-file", "NAME=FILE: file holding that key's secret")
}

func (s *RFC2136Flags) start(_ context.Context, env provider.Env) (func(provider.View) (provider.Provider, error), error) {
	return func(v provider.View) (provider.Provider, error) {
		keyName, secretFile, err := s.viewKey(v.Name, len(env.Views))
		if err != nil {
			return nil, err
		}
		secret, err := LoadTSIGSecret(s.RFC2136TSIGSecret, s.RFC2136TSIGSecretFile, env.Getenv)
		if secretFile != s.RFC2136TSIGSecretFile { // the view's own key: only its file counts
			secret, err = LoadTSIGSecret("", secretFile, func(string) string { return "" })
		}
		if err != nil {
			return nil, fmt.Errorf("--provider=rfc2136: %w", err)
		}
		password, err := LoadKerberosPassword(s.RFC2136KerberosPassword, s.RFC2136KerberosPasswordFile)
		if err != nil {
			return nil, fmt.Errorf("--provider=rfc2136: %w", err)
		}
		if s.RFC2136GSSTSIG && len(env.Views) > 1 {
			return nil, errors.New("--provider=rfc2136: --rfc2136-gss-tsig with views is not supported (BIND selects views by TSIG key, and a GSS-TSIG key has no fixed name)")
		}
		krb5conf := ""
		if env.Getenv != nil {
			krb5conf = env.Getenv(EnvKerberosConfig)
		}
		p, err := New(Config{
			Hosts: s.RFC2136Hosts, Port: s.RFC2136Port, Zones: s.RFC2136Zones,
			TSIGKeyName: keyName, TSIGSecret: secret, TSIGSecretAlg: s.RFC2136TSIGSecretAlg,
			// zonekeeper always reads zones by AXFR: without the zone it cannot update or delete correctly.
			TSIGAXFR:        true,
			MinTTL:          s.RFC2136MinTTL,
			BatchChangeSize: s.RFC2136BatchChangeSize,
			Insecure:        s.RFC2136Insecure, UseTLS: s.RFC2136UseTLS, SkipTLSVerify: s.RFC2136SkipTLSVerify,
			TLSCAFile: env.TLS.CAFile, TLSClientCert: env.TLS.CertFile, TLSClientKey: env.TLS.KeyFile,
			GSSTSIG: s.RFC2136GSSTSIG, KerberosRealm: s.RFC2136KerberosRealm, KerberosUsername: s.RFC2136KerberosUsername,
			KerberosPassword: password, KerberosKeytab: s.RFC2136KerberosKeytab, KerberosConfig: krb5conf,
		})
		if err != nil {
			return nil, fmt.Errorf("--provider=rfc2136: %w", err)
		}
		return p, nil
	}, nil
}

// viewKey returns the TSIG key of a view ("" without views): its own, else --rfc2136-tsig-keyname,
// which only one view may use.
func (s *RFC2136Flags) viewKey(view string, views int) (name, secretFile string, err error) {
	name, secretFile = s.RFC2136TSIGKeyName, s.RFC2136TSIGSecretFile
	if view == "" {
		return name, secretFile, nil
	}
	for _, kv := range s.ViewTSIGKeyName {
		if v, key, ok := strings.Cut(kv, "="); ok && v == view {
			name = key
		}
	}
	for _, kv := range s.ViewTSIGSecretFile {
		if v, file, ok := strings.Cut(kv, "="); ok && v == view {
			secretFile = file
		}
	}
	if name == s.RFC2136TSIGKeyName && views > 1 {
		return "", "", fmt.Errorf("--provider=rfc2136 with views: give view %s its own key with --view-rfc2136-tsig-keyname=%s=KEY and --view-rfc2136-tsig-secret-file=%s=FILE (BIND picks the view by key)", view, view, view)
	}
	return name, secretFile, nil
}
