package conformance

import (
	"slices"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

// typeSamples are a record set of each type beyond the basic four, as a DNSEndpoint would ask for it.
// Every type a provider declares must have one here: a declared type is a promise this suite checks.
// Hosts are outside the zone: BIND refuses an in-zone MX or SRV target that has no address.
func typeSamples() map[string]*endpoint.Endpoint {
	return map[string]*endpoint.Endpoint{
		endpoint.RecordTypeMX:    ep("mx.example.com", endpoint.RecordTypeMX, 300, "10 mail.example.net", "20 mail2.example.net"),
		endpoint.RecordTypeSRV:   ep("_sip._udp.example.com", endpoint.RecordTypeSRV, 300, "10 5 5060 sip.example.net."),
		endpoint.RecordTypeNS:    ep("sub.example.com", endpoint.RecordTypeNS, 300, "ns1.example.net", "ns2.example.net"),
		endpoint.RecordTypePTR:   ep("10.rev.example.com", endpoint.RecordTypePTR, 300, "host.example.com"),
		endpoint.RecordTypeDNAME: ep("old.example.com", endpoint.RecordTypeDNAME, 300, "new.example.net"),
		endpoint.RecordTypeNAPTR: ep("sip.example.com", endpoint.RecordTypeNAPTR, 300, `100 10 "S" "SIP+D2U" "" _sip._udp.example.com.`),
		endpoint.RecordTypeTLSA:  ep("_443._tcp.www.example.com", endpoint.RecordTypeTLSA, 300, "3 1 1 0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9"),
		endpoint.RecordTypeCAA:   ep("caa.example.com", endpoint.RecordTypeCAA, 300, `0 issue "letsencrypt.org"`),
	}
}

// testEveryDeclaredType writes a record set of every type the provider declares beyond A, AAAA, CNAME
// and TXT, reads each back and, with a DNS server, asks for it; then deletes them all.
func testEveryDeclaredType(t *testing.T, s Subject) {
	samples := typeSamples()
	var want []*endpoint.Endpoint
	for _, rt := range s.Provider.Capabilities().RecordTypes {
		if slices.Contains(basicTypes(), rt) {
			continue
		}
		e, ok := samples[rt]
		if !ok {
			t.Errorf("the provider declares %s and the suite has no sample of it: add one to typeSamples", rt)
			continue
		}
		want = append(want, e)
	}
	if len(want) == 0 {
		t.Skip("the provider declares only the basic types")
	}
	mustApply(t, s, creates(want...))
	expectRecords(t, s, want...)
	// An NS below the apex is a delegation: a server answers it with a referral, not an answer.
	expectServed(t, s, slices.DeleteFunc(slices.Clone(want), func(e *endpoint.Endpoint) bool { return e.RecordType == endpoint.RecordTypeNS })...)
	mustApply(t, s, &plan.Changes{Delete: want})
	expectRecords(t, s)
}
