package rfc2136

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

const (
	gssUser     = "zonekeeper"
	gssPassword = "gss-Passw0rd"
	// gssHost is the server's name as the realm knows it (DNS/localhost); krb5.conf maps it to the
	// realm and turns canonicalisation off.
	gssHost = "localhost"
)

// gssBed is a loopback Kerberos realm and a BIND that takes GSS-TSIG updates for example.com from
// gssUser only (update-policy), with a TSIG key it knows but does not grant, and transfers to
// 127.0.0.1.
type gssBed struct {
	kdc  *testbed.KDC
	bind *testbed.BIND
	key  testbed.TSIGKey
	addr string // localhost:PORT
}

func newGSSBed(t *testing.T, maxLife time.Duration) *gssBed {
	t.Helper()
	kdc := testbed.StartKDC(t, testbed.KDCConfig{MaxLife: maxLife, Users: map[string]string{gssUser: gssPassword}, Hosts: []string{gssHost}})
	key := testbed.NewTSIGKey(t, "plain-key", "hmac-sha256")
	b := testbed.StartBIND(t, testbed.BINDConfig{
		Keys: []testbed.TSIGKey{key}, GSSAPIKeytab: kdc.ServiceKeytab, Env: kdc.Env,
		Zones: []testbed.BINDZone{{Name: zone, TransferACL: "127.0.0.1;",
			UpdatePolicy: fmt.Sprintf("grant %s@%s zonesub ANY;", gssUser, kdc.Realm)}},
	})
	_, port, _ := strings.Cut(b.Addr, ":")
	return &gssBed{kdc: kdc, bind: b, key: key, addr: gssHost + ":" + port}
}

func (g *gssBed) config(edit func(*Config)) Config {
	c := Config{Hosts: []string{g.addr}, Zones: []string{zone}, TSIGAXFR: true, GSSTSIG: true,
		KerberosRealm: strings.ToLower(g.kdc.Realm), KerberosUsername: gssUser, KerberosPassword: gssPassword,
		KerberosConfig: g.kdc.ConfigFile}
	edit(&c)
	return c
}

func (g *gssBed) provider(t *testing.T, edit func(*Config)) *Provider {
	t.Helper()
	p, err := New(g.config(edit))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// rawUpdate sends an UPDATE adding name A 192.0.2.99, signed with key when not nil, and returns the
// rcode.
func rawUpdate(t *testing.T, addr, name string, key *testbed.TSIGKey) int {
	t.Helper()
	m := new(dns.Msg)
	m.SetUpdate(dns.Fqdn(zone))
	rr, err := dns.NewRR(dns.Fqdn(name) + " 300 IN A 192.0.2.99")
	if err != nil {
		t.Fatal(err)
	}
	m.Insert([]dns.RR{rr})
	c := &dns.Client{Net: "tcp", Timeout: 5 * time.Second}
	if key != nil {
		c.TsigSecret = map[string]string{dns.Fqdn(key.Name): key.Secret}
		m.SetTsig(dns.Fqdn(key.Name), tsigAlgorithms[key.Algorithm], 300, time.Now().Unix())
	}
	r, _, err := c.Exchange(m, addr)
	if err != nil {
		t.Fatalf("UPDATE: %v", err)
	}
	return r.Rcode
}

// TestGSSTSIG: the zone refuses unsigned and plain-TSIG updates; the provider's GSS-TSIG updates are
// applied (seen by a DNS query), and its GSS-signed AXFR reads them back; one context serves every
// message.
func TestGSSTSIG(t *testing.T) {
	g := newGSSBed(t, 0)
	if rc := rawUpdate(t, g.bind.Addr, "unsigned."+zone, nil); rc != dns.RcodeRefused {
		t.Fatalf("unsigned UPDATE: rcode %s, want REFUSED", dns.RcodeToString[rc])
	}
	if rc := rawUpdate(t, g.bind.Addr, "tsig."+zone, &g.key); rc != dns.RcodeRefused {
		t.Fatalf("TSIG-signed UPDATE: rcode %s, want REFUSED", dns.RcodeToString[rc])
	}
	p := g.provider(t, func(*Config) {})
	mustApply(t, p, &plan.Changes{Create: []*endpoint.Endpoint{
		ep("www."+zone, "A", 300, "192.0.2.10", "192.0.2.11"),
		ep("txt."+zone, "TXT", 300, "heritage=external-dns,external-dns/owner=default"),
	}})
	if got := answers(t, g.bind.Addr, "www."+zone, dns.TypeA, nil); strings.Join(sortedCopy(got), ",") != "192.0.2.10,192.0.2.11" {
		t.Fatalf("www A after GSS-TSIG UPDATE: %v\n%s", got, g.bind.Log())
	}
	recs := recordsByKey(t, p)
	if recs["www."+zone+" A"] != "192.0.2.10,192.0.2.11" || recs["txt."+zone+" TXT"] == "" {
		t.Fatalf("AXFR with GSS-TSIG: %v", recs)
	}
	for _, name := range []string{"unsigned", "tsig"} {
		if _, ok := recs[name+"."+zone+" A"]; ok {
			t.Fatalf("%s UPDATE was applied: %v", name, recs)
		}
	}
	mustApply(t, p, &plan.Changes{
		UpdateOld: []*endpoint.Endpoint{ep("www."+zone, "A", 300, "192.0.2.10", "192.0.2.11")},
		UpdateNew: []*endpoint.Endpoint{ep("www."+zone, "A", 300, "192.0.2.12")},
		Delete:    []*endpoint.Endpoint{ep("txt."+zone, "TXT", 300, "heritage=external-dns,external-dns/owner=default")},
	})
	recs = recordsByKey(t, p)
	if recs["www."+zone+" A"] != "192.0.2.12" || recs["txt."+zone+" TXT"] != "" {
		t.Fatalf("after update and delete: %v", recs)
	}
	if n := p.gss.count(); n != 1 {
		t.Fatalf("%d contexts negotiated, want 1 (reused)", n)
	}
}

// TestGSSTSIGKeytab logs in with the user's keys instead of the password.
func TestGSSTSIGKeytab(t *testing.T) {
	g := newGSSBed(t, 0)
	kt := g.kdc.UserKeytab(t, gssUser)
	p := g.provider(t, func(c *Config) { c.KerberosPassword, c.KerberosKeytab = "", kt })
	mustApply(t, p, &plan.Changes{Create: []*endpoint.Endpoint{ep("kt."+zone, "A", 300, "192.0.2.20")}})
	if got := answers(t, g.bind.Addr, "kt."+zone, dns.TypeA, nil); len(got) != 1 || got[0] != "192.0.2.20" {
		t.Fatalf("kt A: %v", got)
	}
}

// TestGSSTSIGWrongCredentials: a wrong password, an unknown user or a server given by address fails
// the call with an error that names the principal and the setting to check, and never contains the
// password.
func TestGSSTSIGWrongCredentials(t *testing.T) {
	g := newGSSBed(t, 0)
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"password", func(c *Config) { c.KerberosPassword = "not-the-password" }, "--rfc2136-kerberos-password"},
		{"user", func(c *Config) { c.KerberosUsername = "nobody" }, "--rfc2136-kerberos-username"},
		// The service ticket is for DNS/<host as given>: the realm has DNS/localhost, not DNS/127.0.0.1.
		{"address", func(c *Config) { c.Hosts = []string{g.bind.Addr} }, "--rfc2136-host must be the server's host name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := g.provider(t, tc.edit)
			err := p.ApplyChanges(ctxT(t), &plan.Changes{Create: []*endpoint.Endpoint{ep("bad."+zone, "A", 300, "192.0.2.30")}})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "@"+g.kdc.Realm) {
				t.Fatalf("ApplyChanges: %v; want an error naming %s and the principal", err, tc.want)
			}
			t.Log(err)
			if strings.Contains(err.Error(), "not-the-password") || strings.Contains(err.Error(), gssPassword) {
				t.Fatalf("the error shows the password: %v", err)
			}
			if _, err := p.Records(ctxT(t)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Records: %v; want an error naming %s", err, tc.want)
			}
		})
	}
}

// TestGSSTSIGTicketExpiry: tickets live 60 s in this realm. After the ticket has expired, BIND restarts
// without the contexts it saved (as when a context's lifetime ends, or the server lost them); the
// next update is rejected for the context, the provider negotiates a new one (with a new ticket) and
// the update is applied; the AXFR after it uses the new context too.
func TestGSSTSIGTicketExpiry(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a ticket to expire")
	}
	g := newGSSBed(t, 60*time.Second)
	p := g.provider(t, func(*Config) {})
	mustApply(t, p, &plan.Changes{Create: []*endpoint.Endpoint{ep("before."+zone, "A", 300, "192.0.2.40")}})
	time.Sleep(65 * time.Second)
	g.bind.Restart(t) // the context survives a plain restart: named saves it
	mustApply(t, p, &plan.Changes{Create: []*endpoint.Endpoint{ep("restart."+zone, "A", 300, "192.0.2.42")}})
	if n := p.gss.count(); n != 1 {
		t.Fatalf("%d contexts negotiated after a plain restart, want 1", n)
	}
	g.bind.RestartForgettingTKEYKeys(t)
	before := p.updates.Load()
	mustApply(t, p, &plan.Changes{Create: []*endpoint.Endpoint{ep("after."+zone, "A", 300, "192.0.2.41")}})
	if got := answers(t, g.bind.Addr, "after."+zone, dns.TypeA, nil); len(got) != 1 {
		t.Fatalf("after A: %v\n%s", got, g.bind.Log())
	}
	if n, sent := p.gss.count(), p.updates.Load()-before; n != 2 || sent != 2 {
		t.Fatalf("%d contexts negotiated and %d UPDATEs sent, want 2 and 2 (one rejected, one applied)", n, sent)
	}
	if recs := recordsByKey(t, p); recs["after."+zone+" A"] != "192.0.2.41" || recs["before."+zone+" A"] != "192.0.2.40" {
		t.Fatalf("AXFR after renewal: %v", recs)
	}
	// A transfer is renegotiated the same way.
	g.bind.RestartForgettingTKEYKeys(t)
	if recs := recordsByKey(t, p); recs["after."+zone+" A"] != "192.0.2.41" {
		t.Fatalf("AXFR after a second restart: %v", recs)
	}
	if n := p.gss.count(); n != 3 {
		t.Fatalf("%d contexts negotiated, want 3", n)
	}
}

// TestGSSTSIGRenewsBeforeExpiry: with ticket_lifetime 20 s in krb5.conf, the provider negotiates a new
// context once 90% of it has passed, before the server would reject a message: the next update is
// sent once.
func TestGSSTSIGRenewsBeforeExpiry(t *testing.T) {
	g := newGSSBed(t, 0)
	raw, err := os.ReadFile(g.kdc.ConfigFile)
	if err != nil {
		t.Fatal(err)
	}
	short := filepath.Join(t.TempDir(), "krb5.conf")
	if err := os.WriteFile(short, []byte(strings.Replace(string(raw), "ticket_lifetime = 10h", "ticket_lifetime = 20s", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	p := g.provider(t, func(c *Config) { c.KerberosConfig = short })
	mustApply(t, p, &plan.Changes{Create: []*endpoint.Endpoint{ep("one."+zone, "A", 300, "192.0.2.50")}})
	time.Sleep(19 * time.Second)
	before := p.updates.Load()
	mustApply(t, p, &plan.Changes{Create: []*endpoint.Endpoint{ep("two."+zone, "A", 300, "192.0.2.51")}})
	if n := p.gss.count(); n != 2 {
		t.Fatalf("%d contexts negotiated, want 2", n)
	}
	if sent := p.updates.Load() - before; sent != 1 {
		t.Fatalf("%d UPDATE messages sent, want 1 (renewed before sending)", sent)
	}
}
