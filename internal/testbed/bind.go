package testbed

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// TSIGKey is a TSIG key as tsig-keygen prints it: a name, an algorithm (hmac-sha256, …) and a base64
// secret.
type TSIGKey struct {
	Name      string
	Algorithm string
	Secret    string
}

// NewTSIGKey returns a key with a fresh random 256-bit secret, the same material
// `tsig-keygen -a ALG NAME` produces.
func NewTSIGKey(t testing.TB, name, algorithm string) TSIGKey {
	t.Helper()
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		t.Fatal(err)
	}
	return TSIGKey{Name: name, Algorithm: algorithm, Secret: base64.StdEncoding.EncodeToString(secret)}
}

// clause is the named.conf key statement.
func (k TSIGKey) clause() string {
	return fmt.Sprintf("key %q {\n    algorithm %s;\n    secret %q;\n};\n", k.Name, k.Algorithm, k.Secret)
}

// BINDZone is one primary zone. The zone file gets a SOA and an NS naming a server outside the zone
// (so the zone holds no other record); Records adds lines in zone-file syntax relative to the zone
// ("www 300 IN A 192.0.2.1").
type BINDZone struct {
	Name string
	// Records are extra zone-file lines.
	Records []string
	// UpdateKey and TransferKey name the keys allowed to update and to transfer the zone ("" = nobody).
	UpdateKey, TransferKey string
	// TransferACL, when set, is the zone's allow-transfer address match list ("127.0.0.1;") in place
	// of TransferKey: a GSS-TSIG key is negotiated at run time and has no name an ACL could list.
	TransferACL string
	// UpdatePolicy, when set, replaces allow-update with update-policy { UpdatePolicy };
	// ("grant key-name zonesub ANY;").
	UpdatePolicy string
	// Primary, when set, makes the zone a secondary transferring from that server, in named.conf's
	// primaries syntax ("127.0.0.1 port 5353 key \"xfr-key\""); Records, UpdateKey and UpdatePolicy
	// are then ignored. The primary's NOTIFYs are accepted (from its address).
	Primary string
}

// BINDView is a view: the zones defined inside it and who it answers ("key int-key; 127.0.0.2;").
type BINDView struct {
	Name         string
	MatchClients string
	Zones        []BINDZone
}

// BINDConfig is what a BIND test server serves: zones at the top level, or views (not both).
type BINDConfig struct {
	// Port to listen on (UDP and TCP); 0 picks a free one.
	Port  int
	Keys  []TSIGKey
	Zones []BINDZone
	Views []BINDView
	// GSSAPIKeytab, when set, is the keytab named accepts GSS-TSIG (TKEY) contexts with
	// (tkey-gssapi-keytab), such as KDC.ServiceKeytab; grant Kerberos principals in a zone's
	// UpdatePolicy ("grant user@REALM zonesub ANY;").
	GSSAPIKeytab string
	// Env is added to named's environment (KDC.Env: the realm's krb5.conf).
	Env []string
}

// BIND is a named process on loopback (UDP and TCP on the same port).
type BIND struct {
	// Addr is 127.0.0.1:PORT.
	Addr string
	// Dir holds named.conf, the zone files and their journals.
	Dir  string
	proc *process
}

// StartBIND writes named.conf and the zone files into a temporary (writable, for the journals)
// directory and starts `named -g` on a free loopback port.
func StartBIND(t testing.TB, cfg BINDConfig) *BIND {
	t.Helper()
	bin := Binary(t, "named")
	dir := t.TempDir()
	port := cfg.Port
	if port == 0 {
		port = FreePort(t)
	}
	conf := bindConf(dir, port, cfg)
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("named.conf", conf)
	for _, z := range cfg.Zones {
		if z.Primary == "" {
			write(zoneFile("", z.Name), zoneContent(z))
		}
	}
	for _, v := range cfg.Views {
		for _, z := range v.Zones {
			write(zoneFile(v.Name, z.Name), zoneContent(z))
		}
	}
	b := &BIND{Addr: fmt.Sprintf("127.0.0.1:%d", port), Dir: dir, proc: &process{name: bin, dir: dir,
		env: cfg.Env, args: []string{"-g", "-c", filepath.Join(dir, "named.conf")}}}
	if err := b.proc.start(); err != nil {
		t.Fatalf("named: %v", err)
	}
	t.Cleanup(b.proc.stop)
	// Ready when every zone is loaded (named -g logs it; before that an UPDATE gets SERVFAIL, which a
	// loaded machine made visible) and it answers over TCP; with key-matched views an unsigned query
	// gets REFUSED, which is an answer too.
	err := waitFor(b.proc, 20*time.Second, func(ctx context.Context) error {
		if !strings.Contains(b.proc.log(), "all zones loaded") {
			return fmt.Errorf("zones not loaded yet")
		}
		m := new(dns.Msg)
		m.SetQuestion(".", dns.TypeSOA)
		c := &dns.Client{Net: "tcp", Timeout: time.Second}
		_, _, err := c.ExchangeContext(ctx, m, b.Addr)
		return err
	})
	if err != nil {
		t.Fatalf("named: %v\nnamed.conf:\n%s", err, conf)
	}
	return b
}

// Restart stops named and starts it again with the same configuration and zone files (journals
// kept), waiting until its zones are loaded. named saves the keys negotiated by TKEY (GSS-TSIG
// contexts) to <view>.tsigkeys when it stops and reads them back when it starts.
func (b *BIND) Restart(t testing.TB) { b.restart(t, false) }

// RestartForgettingTKEYKeys restarts named without the keys negotiated by TKEY, as a server does whose
// contexts have expired or that lost its state: a client must negotiate a new context.
func (b *BIND) RestartForgettingTKEYKeys(t testing.TB) { b.restart(t, true) }

// Stop stops named, as an outage does: connections are refused until Start. Journals are kept.
func (b *BIND) Stop() { b.proc.stop() }

// Start starts a stopped named again with the same configuration and waits until its zones are
// loaded.
func (b *BIND) Start(t testing.TB) {
	t.Helper()
	loaded := strings.Count(b.proc.log(), "all zones loaded")
	b.start(t, loaded)
}

func (b *BIND) restart(t testing.TB, forgetTKEY bool) {
	t.Helper()
	loaded := strings.Count(b.proc.log(), "all zones loaded")
	b.proc.stop()
	if forgetTKEY {
		saved, _ := filepath.Glob(filepath.Join(b.Dir, "*.tsigkeys"))
		for _, f := range saved {
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
		}
	}
	b.start(t, loaded)
}

// start starts named and waits until it has logged "all zones loaded" more than loaded times.
func (b *BIND) start(t testing.TB, loaded int) {
	t.Helper()
	if err := b.proc.start(); err != nil {
		t.Fatalf("named: %v", err)
	}
	err := waitFor(b.proc, 20*time.Second, func(ctx context.Context) error {
		if strings.Count(b.proc.log(), "all zones loaded") <= loaded {
			return fmt.Errorf("zones not loaded yet")
		}
		return nil
	})
	if err != nil {
		t.Fatalf("named restart: %v", err)
	}
}

// Log returns what named printed (it runs with -g, logging to stderr).
func (b *BIND) Log() string { return b.proc.log() }

func zoneFile(view, zone string) string {
	name := strings.TrimSuffix(zone, ".") + ".zone"
	if view != "" {
		name = view + "-" + name
	}
	return name
}

func zoneContent(z BINDZone) string {
	origin := dns.Fqdn(z.Name)
	var b strings.Builder
	fmt.Fprintf(&b, "$ORIGIN %s\n$TTL 300\n", origin)
	b.WriteString("@ IN SOA ns.invalid. hostmaster.invalid. 1 3600 600 86400 300\n@ IN NS ns.invalid.\n")
	for _, r := range z.Records {
		b.WriteString(r + "\n")
	}
	return b.String()
}

func bindConf(dir string, port int, cfg BINDConfig) string {
	var b strings.Builder
	for _, k := range cfg.Keys {
		b.WriteString(k.clause())
	}
	// Everything named writes goes to dir: several servers run side by side, and /var/run is not ours.
	fmt.Fprintf(&b, `options {
    directory %q;
    pid-file none;
    lock-file none;
    session-keyfile none;
    managed-keys-directory %q;
    listen-on port %d { 127.0.0.1; };
    listen-on-v6 { none; };
    recursion no;
    dnssec-validation no;
    notify no;
`, dir, dir, port)
	if cfg.GSSAPIKeytab != "" {
		fmt.Fprintf(&b, "    tkey-gssapi-keytab %q;\n", cfg.GSSAPIKeytab)
	}
	b.WriteString("};\ncontrols { };\n")
	for _, z := range cfg.Zones {
		b.WriteString(zoneClause("", z))
	}
	for _, v := range cfg.Views {
		fmt.Fprintf(&b, "view %q {\n    match-clients { %s };\n", v.Name, v.MatchClients)
		for _, z := range v.Zones {
			b.WriteString(zoneClause(v.Name, z))
		}
		b.WriteString("};\n")
	}
	return b.String()
}

func zoneClause(view string, z BINDZone) string {
	var b strings.Builder
	if z.Primary != "" {
		fmt.Fprintf(&b, "zone %q {\n    type secondary;\n    file %q;\n    primaries { %s; };\n};\n",
			strings.TrimSuffix(z.Name, "."), zoneFile(view, z.Name), z.Primary)
		return b.String()
	}
	fmt.Fprintf(&b, "zone %q {\n    type primary;\n    file %q;\n", strings.TrimSuffix(z.Name, "."), zoneFile(view, z.Name))
	switch {
	case z.UpdatePolicy != "":
		fmt.Fprintf(&b, "    update-policy { %s };\n", z.UpdatePolicy)
	case z.UpdateKey != "":
		fmt.Fprintf(&b, "    allow-update { key %q; };\n", z.UpdateKey)
	}
	if z.TransferACL != "" {
		fmt.Fprintf(&b, "    allow-transfer { %s };\n", z.TransferACL)
	} else if z.TransferKey != "" {
		fmt.Fprintf(&b, "    allow-transfer { key %q; };\n", z.TransferKey)
	} else {
		b.WriteString("    allow-transfer { none; };\n")
	}
	b.WriteString("};\n")
	return b.String()
}
