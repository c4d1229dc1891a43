package rfc2136

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/provider"
)

const testKerberosPassword = "kerberos-Passw0rd-never-shown"

// gssConfig is a valid GSS-TSIG configuration with a krb5.conf in a temporary directory.
func gssConfig(t *testing.T) Config {
	t.Helper()
	krb5 := filepath.Join(t.TempDir(), "krb5.conf")
	if err := os.WriteFile(krb5, []byte("[libdefaults]\n    default_realm = AD.EXAMPLE\n[realms]\n    AD.EXAMPLE = {\n        kdc = 127.0.0.1:88\n    }\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return Config{Hosts: []string{"dc1.ad.example"}, Zones: []string{"ad.example"}, TSIGAXFR: true, GSSTSIG: true,
		KerberosRealm: "ad.example", KerberosUsername: "svc-dns", KerberosPassword: testKerberosPassword, KerberosConfig: krb5}
}

func TestGSSConfig(t *testing.T) {
	p, err := New(gssConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	if p.gss == nil || p.s.key != nil || p.gss.creds.principal() != "svc-dns@AD.EXAMPLE" {
		t.Fatalf("GSS-TSIG settings: %+v", p.gss)
	}
	for _, tc := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Insecure = true }, "--rfc2136-insecure"},
		{func(c *Config) { c.TSIGKeyName, c.TSIGSecret = "k", testSecret }, "--rfc2136-tsig-keyname"},
		{func(c *Config) { c.UseTLS = true }, "--rfc2136-use-tls"},
		{func(c *Config) { c.KerberosRealm = "" }, "--rfc2136-kerberos-realm"},
		{func(c *Config) { c.KerberosUsername = "" }, "--rfc2136-kerberos-username"},
		{func(c *Config) { c.KerberosUsername = "svc-dns@AD.EXAMPLE" }, "--rfc2136-kerberos-username"},
		{func(c *Config) { c.KerberosPassword = "" }, "--rfc2136-kerberos-password"},
		{func(c *Config) { c.KerberosKeytab = "/nonexistent/user.keytab" }, "choose one"},
		{func(c *Config) { c.KerberosPassword, c.KerberosKeytab = "", "/nonexistent/user.keytab" }, "--rfc2136-kerberos-keytab"},
		{func(c *Config) { c.KerberosConfig = "/nonexistent/krb5.conf" }, "KRB5_CONFIG"},
		{func(c *Config) { c.GSSTSIG = false }, "need --rfc2136-gss-tsig"},
	} {
		c := gssConfig(t)
		tc.edit(&c)
		_, err := New(c)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: want an error naming %q, got %v", c, tc.want, err)
			continue
		}
		if strings.Contains(err.Error(), testKerberosPassword) {
			t.Errorf("error shows the password: %v", err)
		}
	}
	c := gssConfig(t)
	for _, s := range []string{c.String(), fmt.Sprintf("%v %+v %#v", c, c, c)} {
		if strings.Contains(s, testKerberosPassword) || !strings.Contains(s, "svc-dns@AD.EXAMPLE") {
			t.Errorf("printed configuration: %s", s)
		}
	}
}

func TestLoadKerberosPassword(t *testing.T) {
	file := filepath.Join(t.TempDir(), "password")
	if err := os.WriteFile(file, []byte(testKerberosPassword+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := LoadKerberosPassword("", file); err != nil || got != testKerberosPassword {
		t.Fatalf("from the file: %q, %v", got, err)
	}
	if got, err := LoadKerberosPassword("flag-value", ""); err != nil || got != "flag-value" {
		t.Fatalf("from the flag: %q, %v", got, err)
	}
	for _, tc := range []struct{ value, file, want string }{
		{"flag-value", file, "choose one"},
		{"", "/nonexistent/password", "--rfc2136-kerberos-password-file"},
	} {
		if _, err := LoadKerberosPassword(tc.value, tc.file); err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), testKerberosPassword) {
			t.Errorf("%+v: %v", tc, err)
		}
	}
}

// The kind takes external-dns's GSS-TSIG flags (the password also from a file) and KRB5_CONFIG.
func TestKindGSSFlags(t *testing.T) {
	base := gssConfig(t)
	file := filepath.Join(t.TempDir(), "password")
	if err := os.WriteFile(file, []byte(testKerberosPassword), 0o600); err != nil {
		t.Fatal(err)
	}
	var s RFC2136Flags
	k := s.Kind()
	k.Defaults()
	fs := flag.NewFlagSet("z", flag.ContinueOnError)
	k.Flags(fs)
	if err := fs.Parse([]string{"--rfc2136-host=dc1.ad.example", "--rfc2136-zone=ad.example", "--rfc2136-gss-tsig",
		"--rfc2136-kerberos-realm=ad.example", "--rfc2136-kerberos-username=svc-dns", "--rfc2136-kerberos-password-file=" + file}); err != nil {
		t.Fatal(err)
	}
	if errs := k.Check(); len(errs) > 0 {
		t.Fatal(errs)
	}
	newProvider, err := k.New(context.Background(), provider.Env{Getenv: func(name string) string {
		if name == EnvKerberosConfig {
			return base.KerberosConfig
		}
		return ""
	}})
	if err != nil {
		t.Fatal(err)
	}
	pp, err := newProvider(provider.View{})
	if err != nil {
		t.Fatal(err)
	}
	p := pp.(*Provider)
	if p.gss == nil || p.gss.creds.password != testKerberosPassword || p.gss.creds.principal() != "svc-dns@AD.EXAMPLE" || p.gss.creds.krb5path != base.KerberosConfig {
		t.Fatalf("provider from the flags: %+v", p.gss)
	}
}
