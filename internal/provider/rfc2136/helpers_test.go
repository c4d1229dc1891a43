package rfc2136

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

const zone = "example.com"

// bed is a BIND serving example.com (allow-update and allow-transfer by key) and a provider for it.
type bed struct {
	bind *testbed.BIND
	key  testbed.TSIGKey
	p    *Provider
}

// newBed starts BIND with example.com (plus extra zones) and records, and a provider for example.com.
func newBed(t testing.TB, records ...string) *bed {
	t.Helper()
	key := testbed.NewTSIGKey(t, "zonekeeper-key", "hmac-sha256")
	b := testbed.StartBIND(t, testbed.BINDConfig{
		Keys: []testbed.TSIGKey{key},
		Zones: []testbed.BINDZone{
			{Name: zone, UpdateKey: key.Name, TransferKey: key.Name, Records: records},
			{Name: "other.org", UpdateKey: key.Name, TransferKey: key.Name, Records: []string{"www 300 IN A 192.0.2.1"}},
		},
	})
	bd := &bed{bind: b, key: key}
	bd.p = bd.provider(t, func(*Config) {})
	return bd
}

// config is the provider configuration for the bed, changed by edit.
func (b *bed) config(edit func(*Config)) Config {
	c := Config{
		Hosts:         []string{b.bind.Addr},
		Zones:         []string{zone},
		TSIGKeyName:   b.key.Name,
		TSIGSecret:    b.key.Secret,
		TSIGSecretAlg: b.key.Algorithm,
		TSIGAXFR:      true,
	}
	edit(&c)
	return c
}

func (b *bed) provider(t testing.TB, edit func(*Config)) *Provider {
	t.Helper()
	p, err := New(b.config(edit))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// query asks BIND over TCP, signing with key when it is not nil.
func query(t testing.TB, addr, name string, qtype uint16, key *testbed.TSIGKey) *dns.Msg {
	t.Helper()
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), qtype)
	c := &dns.Client{Net: "tcp", Timeout: 5 * time.Second}
	if key != nil {
		c.TsigSecret = map[string]string{dns.Fqdn(key.Name): key.Secret}
		m.SetTsig(dns.Fqdn(key.Name), tsigAlgorithms[key.Algorithm], 300, time.Now().Unix())
	}
	r, _, err := c.Exchange(m, addr)
	if err != nil {
		t.Fatalf("query %s %s: %v", name, dns.TypeToString[qtype], err)
	}
	if r.Rcode != dns.RcodeSuccess && r.Rcode != dns.RcodeNameError {
		t.Fatalf("query %s %s: rcode %s", name, dns.TypeToString[qtype], dns.RcodeToString[r.Rcode])
	}
	return r
}

func (b *bed) lookup(t *testing.T, name string, qtype uint16) []dns.RR {
	return query(t, b.bind.Addr, name, qtype, nil).Answer
}

// answers returns the answer data of type qtype for name, as endpoint targets.
func answers(t testing.TB, addr, name string, qtype uint16, key *testbed.TSIGKey) []string {
	t.Helper()
	var out []string
	for _, rr := range query(t, addr, name, qtype, key).Answer {
		if rr.Header().Rrtype != qtype {
			continue
		}
		if _, target, ok := rrTarget(rr); ok {
			out = append(out, target)
		}
	}
	return out
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func ep(name, recordType string, ttl endpoint.TTL, targets ...string) *endpoint.Endpoint {
	return endpoint.NewWithTTL(name, recordType, ttl, targets...)
}

func mustApply(t testing.TB, p provider.Provider, c *plan.Changes) {
	t.Helper()
	if err := p.ApplyChanges(ctxT(t), c); err != nil {
		t.Fatalf("ApplyChanges: %v", err)
	}
}

// recordsByKey lists the provider's records as "name TYPE" → sorted targets joined by ",".
func recordsByKey(t testing.TB, p provider.Provider) map[string]string {
	t.Helper()
	eps, err := p.Records(ctxT(t))
	if err != nil {
		t.Fatalf("Records: %v", err)
	}
	out := map[string]string{}
	for _, e := range eps {
		out[e.DNSName+" "+e.RecordType] = strings.Join(sortedCopy(e.Targets), ",")
	}
	return out
}

func sortedCopy(s []string) []string {
	c := append([]string(nil), s...)
	for i := 1; i < len(c); i++ {
		for j := i; j > 0 && c[j] < c[j-1]; j-- {
			c[j], c[j-1] = c[j-1], c[j]
		}
	}
	return c
}
