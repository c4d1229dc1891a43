package txt

import (
	"context"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

// typedRecords is one record of every type the mapper encodes, each at a name its type lives at.
func typedRecords() []*endpoint.Endpoint {
	res := func(e *endpoint.Endpoint) *endpoint.Endpoint {
		return e.WithLabel(endpoint.ResourceLabelKey, "crd/default/types")
	}
	return []*endpoint.Endpoint{
		res(endpoint.New("host.example.com", "A", "192.0.2.10")),
		res(endpoint.New("host.example.com", "AAAA", "2001:db8::10")),
		res(endpoint.New("www.example.com", "CNAME", "host.example.com")),
		res(endpoint.New("sub.example.com", "NS", "ns1.example.net")),
		res(endpoint.New("shop.example.com", "MX", "10 mail.example.com")),
		res(endpoint.New("10.2.0.192.in-addr.arpa", "PTR", "host.example.com")),
		res(endpoint.New("_sip._udp.example.com", "SRV", "10 5 5060 sip.example.com.")),
		res(endpoint.New("sip.example.com", "NAPTR", `100 10 "S" "SIP+D2U" "" _sip._udp.example.com.`)),
		res(endpoint.New("note.example.com", "TXT", "hello")),
		res(endpoint.New("old.example.com", "DNAME", "new.example.com")),
		res(endpoint.New("_443._tcp.www.example.com", "TLSA", "3 1 1 0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9")),
		res(endpoint.New("secure.example.com", "CAA", `0 issue "letsencrypt.org"`)),
	}
}

// TestMapperNamesEveryType pins the ownership TXT name of every type under external-dns v0.23's
// default naming (<type>-<first label>.<rest>, the type in lower case) and reads each back.
func TestMapperNamesEveryType(t *testing.T) {
	want := map[string]string{
		"A": "a-host.example.com", "AAAA": "aaaa-host.example.com", "CNAME": "cname-www.example.com",
		"NS": "ns-sub.example.com", "MX": "mx-shop.example.com", "PTR": "ptr-10.2.0.192.in-addr.arpa",
		"SRV": "srv-_sip._udp.example.com", "NAPTR": "naptr-sip.example.com", "TXT": "txt-note.example.com",
		"DNAME": "dname-old.example.com", "TLSA": "tlsa-_443._tcp.www.example.com", "CAA": "caa-secure.example.com",
	}
	m, _ := NewMapper("", "", "")
	for _, e := range typedRecords() {
		got := m.TXTName(e.DNSName, e.RecordType)
		if got != want[e.RecordType] {
			t.Errorf("%s %s: TXT name %q, want %q", e.DNSName, e.RecordType, got, want[e.RecordType])
		}
		name, typ, ok := m.RecordName(got)
		if !ok || name != e.DNSName || typ != e.RecordType {
			t.Errorf("RecordName(%q) = (%q, %q, %v), want (%q, %q)", got, name, typ, ok, e.DNSName, e.RecordType)
		}
	}
	if len(want) != len(mappedTypes) {
		t.Errorf("%d types pinned, the mapper encodes %d", len(want), len(mappedTypes))
	}
}

// TestRoundTripEveryType: a registry writes a record of every type with its ownership TXT under each
// naming configuration, and a second registry (a restart) reads every one back as owned, with its
// resource; a plan over the same desired records then has nothing to do.
func TestRoundTripEveryType(t *testing.T) {
	configs := map[string]Config{
		"defaults":        {},
		"prefix":          {Prefix: "extdns-"},
		"suffix":          {Suffix: "-extdns"},
		"prefix template": {Prefix: "reg-%{record_type}."},
		"suffix template": {Suffix: "-%{record_type}"},
		"encrypted":       {EncryptEnabled: true, EncryptKey: []byte(testKey)},
	}
	var types []string
	for _, e := range typedRecords() {
		types = append(types, e.RecordType)
	}
	for name, cfg := range configs {
		t.Run(name, func(t *testing.T) {
			cfg.OwnerID = "cluster-a"
			cfg.ManagedRecordTypes = types
			mem, _ := newZone("example.com", "in-addr.arpa")
			if err := mustNew(t, mem, cfg).ApplyChanges(context.Background(), &plan.Changes{Create: typedRecords()}); err != nil {
				t.Fatal(err)
			}
			got := mustRecords(t, mustNew(t, mem, cfg))
			for _, want := range typedRecords() {
				e := find(got, want.DNSName, want.RecordType)
				if e == nil {
					t.Errorf("%s missing after a restart", want.Key())
					continue
				}
				if e.Owner() != "cluster-a" || e.Resource() != "crd/default/types" {
					t.Errorf("%s: read back with labels %v, want owner cluster-a and its resource", want.Key(), e.Labels)
				}
			}
			res := plan.Calculate(plan.Input{
				Current: got, Desired: typedRecords(), OwnerID: "cluster-a", ManagedRecordTypes: types,
			})
			if c := res.Changes; len(c.Create)+len(c.UpdateNew)+len(c.Delete) != 0 || len(res.OwnerMismatches) != 0 {
				t.Errorf("second run plans changes: %+v, owner mismatches %+v", res.Changes, res.OwnerMismatches)
			}
		})
	}
}
