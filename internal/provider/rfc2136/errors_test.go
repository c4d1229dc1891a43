package rfc2136

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/miekg/dns"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// A wrong secret fails reads and writes with an error naming the zone, the key and BIND's TSIG
// error, never the secret; nothing is applied; a provider built with the right key then works.
func TestWrongSecretIsAClearErrorAndRecovers(t *testing.T) {
	b := newBed(t)
	wrong := testbed.NewTSIGKey(t, "x", "hmac-sha256").Secret
	p := b.provider(t, func(c *Config) { c.TSIGSecret = wrong })
	www := ep("www.example.com", endpoint.RecordTypeA, 300, "192.0.2.1")

	err := p.ApplyChanges(ctxT(t), &plan.Changes{Create: []*endpoint.Endpoint{www}})
	expectZoneError(t, err, dns.RcodeNotAuth, "example.com", "zonekeeper-key", "BADSIG")
	for _, s := range []string{wrong, b.key.Secret} {
		if strings.Contains(err.Error(), s) {
			t.Fatal("the error shows a secret")
		}
	}
	_, err = p.Records(ctxT(t))
	expectZoneError(t, err, dns.RcodeNotAuth, "example.com", "zonekeeper-key", "AXFR")
	if got := answers(t, b.bind.Addr, "www.example.com", dns.TypeA, nil); len(got) != 0 {
		t.Fatalf("applied with a wrong key: %v", got)
	}

	fixed := b.provider(t, func(*Config) {})
	mustApply(t, fixed, &plan.Changes{Create: []*endpoint.Endpoint{www}})
	if got := recordsByKey(t, fixed)["www.example.com A"]; got != "192.0.2.1" {
		t.Fatalf("after fixing the key: %q", got)
	}
}

func TestUnknownKeyNameIsBADKEY(t *testing.T) {
	b := newBed(t)
	p := b.provider(t, func(c *Config) { c.TSIGKeyName = "nobody-key" })
	err := p.ApplyChanges(ctxT(t), &plan.Changes{Create: []*endpoint.Endpoint{ep("www.example.com", endpoint.RecordTypeA, 300, "192.0.2.1")}})
	expectZoneError(t, err, dns.RcodeNotAuth, "example.com", "nobody-key", "BADKEY", "does not know this key")
}

// Unsigned requests to a zone that only takes its key: REFUSED, and the error says so.
func TestUnsignedUpdateToKeyProtectedZoneIsRefused(t *testing.T) {
	b := newBed(t)
	p := b.provider(t, func(c *Config) {
		c.Insecure, c.TSIGKeyName, c.TSIGSecret, c.TSIGSecretAlg = true, "", "", ""
	})
	err := p.ApplyChanges(ctxT(t), &plan.Changes{Create: []*endpoint.Endpoint{
		ep("a.example.com", endpoint.RecordTypeA, 300, "192.0.2.1"),
		ep("b.example.com", endpoint.RecordTypeA, 300, "192.0.2.2"),
	}})
	expectZoneError(t, err, dns.RcodeRefused, "example.com", "unsigned", "--rfc2136-insecure")
	_, err = p.Records(ctxT(t))
	expectZoneError(t, err, dns.RcodeRefused, "example.com", "AXFR", "allow-transfer")
}

func expectZoneError(t *testing.T, err error, rcode int, wants ...string) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	if _, ok := provider.AsApplyError(err); ok {
		t.Fatalf("a failure of the whole zone came back as per-change rejections: %v", err)
	}
	var rc *RcodeError
	if !errors.As(err, &rc) || rc.Rcode != rcode {
		t.Fatalf("want an RcodeError with %s, got %v", dns.RcodeToString[rcode], err)
	}
	for _, w := range wants {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error does not mention %q: %v", w, err)
		}
	}
}

// In one call of many changes, spread over several UPDATE messages: a CNAME beside an existing A and
// an A beside an existing CNAME are reported with BIND's YXRRSET, and everything else is applied.
func TestRefusedChangesAreIsolated(t *testing.T) {
	b := newBed(t, "taken 300 IN A 192.0.2.100", "alias 300 IN CNAME lb.example.net.")
	p := b.provider(t, func(c *Config) { c.BatchChangeSize = 10 })
	var creates []*endpoint.Endpoint
	for i := 0; i < 60; i++ {
		creates = append(creates, ep(fmt.Sprintf("h%d.example.com", i), endpoint.RecordTypeA, 300, fmt.Sprintf("10.0.0.%d", i+1)))
	}
	clash1 := ep("taken.example.com", endpoint.RecordTypeCNAME, 300, "lb.example.net")
	clash2 := ep("alias.example.com", endpoint.RecordTypeTXT, 300, "beside a CNAME")
	creates = append(creates[:17], append([]*endpoint.Endpoint{clash1}, creates[17:]...)...)
	creates = append(creates, clash2)
	before := p.updates.Load()

	err := p.ApplyChanges(ctxT(t), &plan.Changes{Create: creates})
	ae, ok := provider.AsApplyError(err)
	if !ok || len(ae.Rejected) != 2 {
		t.Fatalf("want the two clashes rejected, got %v", err)
	}
	for _, r := range ae.Rejected {
		var rc *RcodeError
		if !errors.As(r.Err, &rc) || rc.Rcode != dns.RcodeYXRrset {
			t.Errorf("%s %s: want YXRRSET from BIND, got %v", r.Endpoint.DNSName, r.Endpoint.RecordType, r.Err)
		}
		if r.Endpoint != clash1 && r.Endpoint != clash2 {
			t.Errorf("rejected %s %s", r.Endpoint.DNSName, r.Endpoint.RecordType)
		}
	}
	got := recordsByKey(t, p)
	for i := 0; i < 60; i++ {
		if got[fmt.Sprintf("h%d.example.com A", i)] != fmt.Sprintf("10.0.0.%d", i+1) {
			t.Fatalf("h%d not applied", i)
		}
	}
	if got["taken.example.com A"] != "192.0.2.100" || got["alias.example.com CNAME"] != "lb.example.net" {
		t.Fatalf("the existing records changed: %v", got)
	}
	// 7 batches, two of which are bisected down to one name: a few extra messages, not one per change.
	if n := p.updates.Load() - before; n > 7+2*2*4 {
		t.Errorf("%d UPDATE messages for 62 changes", n)
	}
}

// Under update-policy, BIND refuses names the key may not change; the others of the batch apply.
func TestUpdatePolicyRefusalIsPerName(t *testing.T) {
	key := testbed.NewTSIGKey(t, "apps-key", "hmac-sha512")
	b := testbed.StartBIND(t, testbed.BINDConfig{Keys: []testbed.TSIGKey{key}, Zones: []testbed.BINDZone{{
		Name: zone, TransferKey: key.Name,
		UpdatePolicy: `grant apps-key subdomain apps.example.com. ANY;`,
	}}})
	p, err := New(Config{Hosts: []string{b.Addr}, Zones: []string{zone}, TSIGKeyName: key.Name, TSIGSecret: key.Secret, TSIGSecretAlg: "hmac-sha512", TSIGAXFR: true})
	if err != nil {
		t.Fatal(err)
	}
	denied := ep("www.example.com", endpoint.RecordTypeA, 300, "192.0.2.9")
	err = p.ApplyChanges(ctxT(t), &plan.Changes{Create: []*endpoint.Endpoint{
		ep("web.apps.example.com", endpoint.RecordTypeA, 300, "192.0.2.1"),
		denied,
		ep("api.apps.example.com", endpoint.RecordTypeA, 300, "192.0.2.2"),
	}})
	ae, ok := provider.AsApplyError(err)
	if !ok || len(ae.Rejected) != 1 || ae.Rejected[0].Endpoint != denied {
		t.Log(b.Log())
		t.Fatalf("want www.example.com rejected, got %v", err)
	}
	var rc *RcodeError
	if !errors.As(ae.Rejected[0].Err, &rc) || rc.Rcode != dns.RcodeRefused || !strings.Contains(rc.Error(), "update-policy") {
		t.Fatalf("want REFUSED naming update-policy, got %v", ae.Rejected[0].Err)
	}
	got := recordsByKey(t, p)
	if got["web.apps.example.com A"] != "192.0.2.1" || got["api.apps.example.com A"] != "192.0.2.2" {
		t.Fatalf("allowed names not applied: %v", got)
	}
}

// Records lists what is in the zone, grouped per name and type, and leaves out the SOA, the apex NS,
// and types the provider does not manage.
func TestRecordsReadsTheZone(t *testing.T) {
	b := newBed(t,
		"www 60 IN A 192.0.2.1", "www 60 IN A 192.0.2.2",
		"v6 IN AAAA 2001:db8::1",
		"txt IN TXT \"v=spf1 -all\"",
		"long IN TXT \""+strings.Repeat("a", 255)+"\" \"bc\"",
		"@ IN MX 10 mail.example.com.",
		"_sip._tcp IN SRV 0 5 5060 sip.example.com.",
		"sub IN NS ns.elsewhere.net.",
		"hinfo IN HINFO \"PC\" \"Linux\"",
		"caa IN CAA 0 issue \"letsencrypt.org\"",
	)
	got := recordsByKey(t, b.p)
	want := map[string]string{
		"www.example.com A":         "192.0.2.1,192.0.2.2",
		"v6.example.com AAAA":       "2001:db8::1",
		"txt.example.com TXT":       "v=spf1 -all",
		"long.example.com TXT":      strings.Repeat("a", 255) + "bc",
		"example.com MX":            "10 mail.example.com",
		"_sip._tcp.example.com SRV": "0 5 5060 sip.example.com",
		"sub.example.com NS":        "ns.elsewhere.net",
		"caa.example.com CAA":       `0 issue "letsencrypt.org"`,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Records:\n got %v\nwant %v", got, want)
	}
	eps, _ := b.p.Records(ctxT(t))
	for _, e := range eps {
		if e.DNSName == "www.example.com" && e.RecordTTL != 60 {
			t.Errorf("www TTL %d, want 60", e.RecordTTL)
		}
	}
}

// TXT targets are stored byte for byte: quotes, backslashes, non-ASCII bytes and text longer than one
// 255-byte string come back unchanged, and BIND serves the same bytes.
func TestTXTRoundTrip(t *testing.T) {
	b := newBed(t)
	values := []string{`"quoted" and \backslash`, "caf\u00e9 \x01", strings.Repeat("x", 600), ""}
	var eps []*endpoint.Endpoint
	for i, v := range values {
		eps = append(eps, ep(fmt.Sprintf("t%d.example.com", i), endpoint.RecordTypeTXT, 300, v))
	}
	mustApply(t, b.p, &plan.Changes{Create: eps})
	got := recordsByKey(t, b.p)
	for i, v := range values {
		name := fmt.Sprintf("t%d.example.com", i)
		if got[name+" TXT"] != v {
			t.Errorf("%s: read %q, wrote %q", name, got[name+" TXT"], v)
		}
		if served := answers(t, b.bind.Addr, name, dns.TypeTXT, nil); len(served) != 1 || served[0] != v {
			t.Errorf("%s: served %q, wrote %q", name, served, v)
		}
	}
}

// Changes the server never sees: a name in no zone, a set identifier, an unsupported type, a CNAME at
// the apex, apex NS, bad targets, a CNAME and an A written to one name in one call.
func TestInvalidChangesAreRejectedBeforeSending(t *testing.T) {
	b := newBed(t)
	bad := []*endpoint.Endpoint{
		ep("www.notexample.com", endpoint.RecordTypeA, 300, "192.0.2.1"),
		ep("set.example.com", endpoint.RecordTypeA, 300, "192.0.2.1").WithSetIdentifier("eu"),
		ep("sshfp.example.com", "SSHFP", 300, "1 1 123456789abcdef67890123456789abcdef67890"),
		ep("example.com", endpoint.RecordTypeCNAME, 300, "lb.example.net"),
		ep("example.com", endpoint.RecordTypeNS, 300, "ns2.example.net"),
		ep("bad4.example.com", endpoint.RecordTypeA, 300, "2001:db8::1"),
		ep("bad6.example.com", endpoint.RecordTypeAAAA, 300, "192.0.2.1"),
		ep("badcname.example.com", endpoint.RecordTypeCNAME, 300, "not a host"),
		ep("badmx.example.com", endpoint.RecordTypeMX, 300, "ten mail.example.com"),
		ep("both.example.com", endpoint.RecordTypeCNAME, 300, "lb.example.net"),
	}
	good := []*endpoint.Endpoint{
		ep("both.example.com", endpoint.RecordTypeA, 300, "192.0.2.5"),
		ep("mx.example.com", endpoint.RecordTypeMX, 300, "10 mail.example.net"),
	}
	err := b.p.ApplyChanges(ctxT(t), &plan.Changes{Create: append(append([]*endpoint.Endpoint{}, bad...), good...)})
	ae, ok := provider.AsApplyError(err)
	if !ok || len(ae.Rejected) != len(bad) {
		t.Fatalf("want %d rejections, got %v", len(bad), err)
	}
	for i, r := range ae.Rejected {
		if r.Err == nil || r.Endpoint != bad[i] {
			t.Errorf("rejection %d: %s %s %v", i, r.Endpoint.DNSName, r.Endpoint.RecordType, r.Err)
		}
		if !strings.Contains(r.Err.Error(), strings.TrimSuffix(bad[i].DNSName, ".")) && !strings.Contains(r.Err.Error(), bad[i].SetIdentifier+"\"") && !strings.Contains(r.Err.Error(), "NAPTR") {
			t.Errorf("rejection of %s does not name it: %v", bad[i].DNSName, r.Err)
		}
	}
	got := recordsByKey(t, b.p)
	if got["both.example.com A"] != "192.0.2.5" || got["mx.example.com MX"] != "10 mail.example.net" || len(got) != 2 {
		t.Fatalf("zone after the call: %v", got)
	}
}
