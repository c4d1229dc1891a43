package endpoint

import (
	"strings"
	"testing"
)

// TestValidateRecordData: the per-type checks external-dns v0.23 makes (MX, SRV with its dot, PTR
// names, NAPTR ending in a dot) and the ones zonekeeper adds (TLSA and CAA fields), each failure naming
// the field.
func TestValidateRecordData(t *testing.T) {
	tests := []struct {
		name, recordType, target string
		field, reason            string // "" when valid
	}{
		{"mx.example.com", "MX", "10 mail.example.com", "", ""},
		{"mx.example.com", "MX", "mail.example.com", "targets[0]", "MX data is"},
		{"mx.example.com", "MX", "70000 mail.example.com", "targets[0]", "preference"},
		{"_sip._udp.example.com", "SRV", "10 5 5060 sip.example.com.", "", ""},
		{"_sip._udp.example.com", "SRV", "10 5 5060 sip.example.com", "targets[0]", "must end with a dot"},
		{"_sip._udp.example.com", "SRV", "10 5 x sip.example.com.", "targets[0]", "port"},
		{"10.2.0.192.in-addr.arpa", "PTR", "host.example.com", "", ""},
		{"1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa", "PTR", "host.example.com", "", ""},
		{"host.example.com", "PTR", "other.example.com", "dnsName", "in-addr.arpa or ip6.arpa"},
		{"10.2.0.192.in-addr.arpa", "PTR", "192.0.2.10", "targets[0]", "address"},
		{"sip.example.com", "NAPTR", `100 10 "S" "SIP+D2U" "" _sip._udp.example.com.`, "", ""},
		{"sip.example.com", "NAPTR", `100 10 "S" "SIP+D2U" "" _sip._udp.example.com`, "targets[0]", "end with a dot"},
		{"_443._tcp.www.example.com", "TLSA", "3 1 1 0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9", "", ""},
		{"_443._tcp.www.example.com", "TLSA", "3 1 1 0a1b2c3d", "targets[0]", "64-character"},
		{"_443._tcp.www.example.com", "TLSA", "3 0 0 3082", "", ""},
		{"_443._tcp.www.example.com", "TLSA", "3 2 1 0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9", "targets[0]", "selector"},
		{"_443._tcp.www.example.com", "TLSA", "3 1 0 zz", "targets[0]", "hexadecimal"},
		{"_443._tcp.www.example.com", "TLSA", "4 1 1 0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9", "targets[0]", "usage"},
		{"www.example.com", "CAA", `0 issue "letsencrypt.org"`, "", ""},
		{"www.example.com", "CAA", `0 is-sue "letsencrypt.org"`, "targets[0]", "tag"},
		{"old.example.com", "DNAME", "new.example.com.", "", ""},
		{"old.example.com", "DNAME", "192.0.2.1", "targets[0]", "address"},
	}
	for _, tt := range tests {
		e := New(tt.name, tt.recordType, tt.target)
		err := e.Validate()
		switch {
		case tt.field == "" && err != nil:
			t.Errorf("%s %s %q: %v", tt.recordType, tt.name, tt.target, err)
		case tt.field != "" && err == nil:
			t.Errorf("%s %s %q: accepted", tt.recordType, tt.name, tt.target)
		case tt.field != "" && (err.Field != tt.field || !strings.Contains(err.Reason, tt.reason)):
			t.Errorf("%s %s %q: %v, want field %s and %q", tt.recordType, tt.name, tt.target, err, tt.field, tt.reason)
		}
	}
}
