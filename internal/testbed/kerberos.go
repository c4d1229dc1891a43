package testbed

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// KDCConfig is a loopback MIT Kerberos realm.
type KDCConfig struct {
	// Realm is the realm's name (DefaultRealm when empty).
	Realm string
	// MaxLife caps every ticket's lifetime (kdc.conf max_life; 10 h when zero). A short one lets a test
	// see tickets, and the GSS-TSIG contexts built on them, expire.
	MaxLife time.Duration
	// Users are user principals (without realm) and their passwords.
	Users map[string]string
	// Hosts are the host names the realm serves: each gets the service principal DNS/<host> (written
	// to ServiceKeytab) and a [domain_realm] line in krb5.conf.
	Hosts []string
}

// DefaultRealm is the realm StartKDC creates when KDCConfig.Realm is empty.
const DefaultRealm = "ZONEKEEPER.TEST"

// KDC is a krb5kdc process on loopback (UDP and TCP on the same port) with its own database.
type KDC struct {
	Realm string
	// Addr is 127.0.0.1:PORT.
	Addr string
	// Dir holds kdc.conf, krb5.conf, the database and the keytabs.
	Dir string
	// ConfigFile is the krb5.conf clients of this realm use (for KRB5_CONFIG): the KDC's address,
	// default_realm, [domain_realm] for Hosts, no DNS lookups and no host name canonicalisation.
	ConfigFile string
	// ServiceKeytab holds the keys of the DNS/<host> principals, for BIND's tkey-gssapi-keytab.
	ServiceKeytab string
	// Env is what a process of this realm needs in its environment (KRB5_CONFIG, KRB5_KDC_PROFILE, no
	// replay cache files outside Dir).
	Env  []string
	proc *process
}

// StartKDC creates a realm database (kdb5_util create -s), adds the principals with kadmin.local and
// starts `krb5kdc -n` on a free loopback port. Every file is in a temporary directory; /etc is not
// read or written.
func StartKDC(t testing.TB, cfg KDCConfig) *KDC {
	t.Helper()
	bin := Binary(t, "krb5kdc")
	kdbUtil := Binary(t, "kdb5_util")
	kadmin := Binary(t, "kadmin.local")
	realm := cfg.Realm
	if realm == "" {
		realm = DefaultRealm
	}
	maxLife := cfg.MaxLife
	if maxLife <= 0 {
		maxLife = 10 * time.Hour
	}
	dir := t.TempDir()
	port := FreePort(t)
	k := &KDC{Realm: realm, Addr: fmt.Sprintf("127.0.0.1:%d", port), Dir: dir,
		ConfigFile: filepath.Join(dir, "krb5.conf"), ServiceKeytab: filepath.Join(dir, "dns.keytab")}
	var domains strings.Builder
	for _, h := range cfg.Hosts {
		fmt.Fprintf(&domains, "    %s = %s\n", h, realm)
	}
	krb5 := fmt.Sprintf(`[libdefaults]
    default_realm = %[1]s
    dns_lookup_realm = false
    dns_lookup_kdc = false
    dns_canonicalize_hostname = false
    rdns = false
    udp_preference_limit = 1
    ticket_lifetime = 10h
    forwardable = false

[realms]
    %[1]s = {
        kdc = %[2]s
    }

[domain_realm]
%[3]s`, realm, k.Addr, domains.String())
	kdc := fmt.Sprintf(`[kdcdefaults]
    kdc_listen = %[2]s
    kdc_tcp_listen = %[2]s

[realms]
    %[1]s = {
        database_name = %[3]s
        key_stash_file = %[4]s
        acl_file = %[5]s
        max_life = %[6]ds
        max_renewable_life = 0
        supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal
    }

[logging]
    kdc = STDERR
`, realm, k.Addr, filepath.Join(dir, "principal"), filepath.Join(dir, "stash"), filepath.Join(dir, "kadm5.acl"),
		int(maxLife/time.Second))
	for name, content := range map[string]string{"krb5.conf": krb5, "kdc.conf": kdc, "kadm5.acl": ""} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	k.Env = []string{"KRB5_CONFIG=" + k.ConfigFile, "KRB5_KDC_PROFILE=" + filepath.Join(dir, "kdc.conf"),
		"KRB5RCACHETYPE=none", "KRB5CCNAME=FILE:" + filepath.Join(dir, "ccache")}
	run := func(name string, args ...string) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), k.Env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
		}
	}
	run(kdbUtil, "-r", realm, "create", "-s", "-W", "-P", "kdc-master-"+realm)
	for user, password := range cfg.Users {
		run(kadmin, "-r", realm, "-q", fmt.Sprintf("addprinc -pw %s %s", password, user))
	}
	for _, h := range cfg.Hosts {
		run(kadmin, "-r", realm, "-q", "addprinc -randkey DNS/"+h)
		run(kadmin, "-r", realm, "-q", fmt.Sprintf("ktadd -k %s DNS/%s", k.ServiceKeytab, h))
	}
	k.proc = &process{name: bin, dir: dir, env: k.Env, args: []string{"-n", "-r", realm}}
	if err := k.proc.start(); err != nil {
		t.Fatalf("krb5kdc: %v", err)
	}
	t.Cleanup(k.proc.stop)
	err := waitFor(k.proc, 20*time.Second, func(ctx context.Context) error {
		c, err := (&net.Dialer{}).DialContext(ctx, "tcp", k.Addr)
		if err != nil {
			return err
		}
		return c.Close()
	})
	if err != nil {
		t.Fatalf("krb5kdc: %v", err)
	}
	return k
}

// UserKeytab writes the keys of a user principal to a new keytab file, keeping its password valid
// (kadmin.local's ktadd -norandkey), and returns the file's path.
func (k *KDC) UserKeytab(t testing.TB, user string) string {
	t.Helper()
	path := filepath.Join(k.Dir, user+".keytab")
	cmd := exec.Command(Binary(t, "kadmin.local"), "-r", k.Realm, "-q", fmt.Sprintf("ktadd -norandkey -k %s %s", path, user))
	cmd.Env = append(os.Environ(), k.Env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kadmin.local ktadd: %v\n%s", err, out)
	}
	return path
}

// Log returns what krb5kdc printed.
func (k *KDC) Log() string { return k.proc.log() }
