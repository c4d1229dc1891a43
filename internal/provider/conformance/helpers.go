package conformance

import (
	"context"
	"fmt"
	"net/netip"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zonekeeper/zonekeeper/internal/dnstext"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// ctx bounds each provider call of the suite.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return c
}

// requireTypes skips the case unless the provider supports every type.
func requireTypes(t *testing.T, s Subject, types ...string) {
	t.Helper()
	caps := s.Provider.Capabilities()
	for _, rt := range types {
		if !caps.Supports(rt) {
			t.Skipf("provider does not support %s", rt)
		}
	}
}

// mustApply applies changes that must all succeed.
func mustApply(t *testing.T, s Subject, c *plan.Changes) {
	t.Helper()
	if err := s.Provider.ApplyChanges(ctx(t), c); err != nil {
		t.Fatalf("ApplyChanges: %v", err)
	}
}

func creates(eps ...*endpoint.Endpoint) *plan.Changes { return &plan.Changes{Create: eps} }

// records reads the provider's records.
func records(t *testing.T, s Subject) []*endpoint.Endpoint {
	t.Helper()
	eps, err := s.Provider.Records(ctx(t))
	if err != nil {
		t.Fatalf("Records: %v", err)
	}
	return eps
}

// describe renders a record set for comparison: name, type, TTL and the sorted, canonical targets. An
// unset TTL is shown as the provider's declared default: a server that always stores a TTL (BIND,
// PowerDNS) reads back the default for a record written without one, and that is the same record.
func describe(e *endpoint.Endpoint, defaultTTL endpoint.TTL) string {
	ts := make([]string, len(e.Targets))
	for i, x := range e.Targets {
		ts[i] = canonicalTarget(e.RecordType, x)
	}
	sort.Strings(ts)
	ttl := e.RecordTTL
	if ttl == 0 {
		ttl = defaultTTL
	}
	return fmt.Sprintf("%s %s ttl=%d %q", e.DNSName, e.RecordType, ttl, ts)
}

func canonicalTarget(recordType, t string) string {
	if recordType == endpoint.RecordTypeTXT {
		return t
	}
	if a, err := netip.ParseAddr(t); err == nil {
		return a.Unmap().String()
	}
	return strings.ToLower(strings.TrimSuffix(t, "."))
}

// expectRecords checks that Records returns exactly want (names, types, TTLs, targets as sets).
func expectRecords(t *testing.T, s Subject, want ...*endpoint.Endpoint) {
	t.Helper()
	defTTL := s.Provider.Capabilities().DefaultTTL
	got := map[string]bool{}
	for _, e := range records(t, s) {
		got[describe(e, defTTL)] = true
	}
	exp := map[string]bool{}
	for _, e := range want {
		exp[describe(e, defTTL)] = true
	}
	var missing, extra []string
	for d := range exp {
		if !got[d] {
			missing = append(missing, d)
		}
	}
	for d := range got {
		if !exp[d] {
			extra = append(extra, d)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 || len(extra) > 0 {
		t.Fatalf("Records differ from what was written\nmissing: %s\nunexpected: %s", strings.Join(missing, "\n  "), strings.Join(extra, "\n  "))
	}
}

// expectRejected checks that err is an *ApplyError listing exactly the given (action, name, type).
func expectRejected(t *testing.T, err error, want ...string) {
	t.Helper()
	ae, ok := provider.AsApplyError(err)
	if !ok {
		t.Fatalf("want an *ApplyError rejecting %v, got %v", want, err)
	}
	var got []string
	for _, r := range ae.Rejected {
		if r.Err == nil {
			t.Errorf("rejected change %s %s has no reason", r.Action, r.Endpoint.DNSName)
		}
		got = append(got, fmt.Sprintf("%s %s %s", r.Action, r.Endpoint.DNSName, r.Endpoint.RecordType))
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("rejected %v, want %v (error: %v)", got, want, err)
	}
}

// expectServed checks, when the subject has a DNS server, that it answers each record set with exactly
// its targets and TTL. A CNAME is asked for with an A query, as resolvers do, and must answer a CNAME.
func expectServed(t *testing.T, s Subject, eps ...*endpoint.Endpoint) {
	t.Helper()
	if s.Lookup == nil {
		return
	}
	defTTL := s.Provider.Capabilities().DefaultTTL
	for _, e := range eps {
		qtype := dns.StringToType[e.RecordType]
		if e.RecordType == endpoint.RecordTypeCNAME {
			qtype = dns.TypeA
		}
		var got []string
		for _, rr := range s.Lookup(t, e.DNSName, qtype) {
			if !strings.EqualFold(rr.Header().Name, dns.Fqdn(e.DNSName)) || rr.Header().Rrtype != dns.StringToType[e.RecordType] {
				continue
			}
			want := e.RecordTTL
			if !want.IsConfigured() {
				want = defTTL
			}
			if int64(rr.Header().Ttl) != int64(want) {
				t.Errorf("DNS %s %s: TTL %d, want %d", e.DNSName, e.RecordType, rr.Header().Ttl, want)
			}
			got = append(got, rrValue(rr))
		}
		w := make([]string, len(e.Targets))
		for i, x := range e.Targets {
			w[i] = canonicalTarget(e.RecordType, x)
			if e.RecordType == endpoint.RecordTypeTXT && s.TXTOnWire != nil {
				w[i] = s.TXTOnWire(x)
			}
		}
		sort.Strings(got)
		sort.Strings(w)
		if strings.Join(got, "|") != strings.Join(w, "|") {
			t.Errorf("DNS %s %s answered %q, want %q", e.DNSName, e.RecordType, got, w)
		}
	}
}

// expectNotServed checks that the DNS server has no data of the type at the name.
func expectNotServed(t *testing.T, s Subject, name, recordType string) {
	t.Helper()
	if s.Lookup == nil {
		return
	}
	qtype := dns.StringToType[recordType]
	if recordType == endpoint.RecordTypeCNAME {
		qtype = dns.TypeA
	}
	for _, rr := range s.Lookup(t, name, qtype) {
		if strings.EqualFold(rr.Header().Name, dns.Fqdn(name)) && rr.Header().Rrtype == dns.StringToType[recordType] {
			t.Errorf("DNS still answers %s for %s: %s", recordType, name, rr)
		}
	}
}

// rrValue is the target of an answer in the endpoint's form (TXT strings joined as CoreDNS splits
// long ones).
func rrValue(rr dns.RR) string {
	switch v := rr.(type) {
	case *dns.A:
		return v.A.String()
	case *dns.AAAA:
		return v.AAAA.String()
	case *dns.CNAME:
		return canonicalTarget(endpoint.RecordTypeCNAME, v.Target)
	case *dns.TXT:
		return dnstext.Unescape(strings.Join(v.Txt, ""))
	}
	// Other types: the zone-file data after the header, in the endpoint's canonical form.
	return canonicalTarget(dns.TypeToString[rr.Header().Rrtype], strings.TrimPrefix(rr.String(), rr.Header().String()))
}
