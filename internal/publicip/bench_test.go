package publicip

import (
	"net/netip"
	"testing"
)

func BenchmarkSTUNEncodeBindingRequest(b *testing.B) {
	buf := make([]byte, 0, 64)
	id := stunTxID{1, 2, 3}
	b.ReportAllocs()
	for b.Loop() {
		buf = appendStunBindingRequest(buf[:0], id)
	}
}

func BenchmarkSTUNEncodeBindingSuccess(b *testing.B) {
	buf := make([]byte, 0, 128)
	id := stunTxID{1, 2, 3}
	ap := netip.MustParseAddrPort("[2001:db8::7]:40000")
	b.ReportAllocs()
	for b.Loop() {
		buf = appendStunBindingSuccess(buf[:0], id, ap, true)
	}
}

// Decoding RFC 5769's IPv4 response: SOFTWARE, XOR-MAPPED-ADDRESS, MESSAGE-INTEGRITY (skipped) and a
// checked FINGERPRINT.
func BenchmarkSTUNDecodeRFC5769IPv4Response(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		m, err := parseStunMessage(rfc5769IPv4Response)
		if err != nil || !m.XORMapped.IsValid() {
			b.Fatal(err)
		}
	}
}

func BenchmarkSTUNDecodeRFC5769IPv6Response(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		m, err := parseStunMessage(rfc5769IPv6Response)
		if err != nil || !m.XORMapped.IsValid() {
			b.Fatal(err)
		}
	}
}
