package publicip

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"net/netip"
	"strings"
	"testing"
)

// The sample messages of RFC 5769 §2, typed from the RFC. All three carry MESSAGE-INTEGRITY made with
// the short-term password below and a FINGERPRINT, so a mistyped byte fails the test.
const rfc5769Password = "VOkJxbRl1RmTxUk/WvJxBt"

// rfc5769Request is §2.1 "Sample Request".
var rfc5769Request = hexBytes(`
	0001 0058 2112 a442
	b7e7 a701 bc34 d686 fa87 dfae
	8022 0010 5354 554e 2074 6573 7420 636c 6965 6e74
	0024 0004 6e00 01ff
	8029 0008 932f f9b1 5126 3b36
	0006 0009 6576 746a 3a68 3676 5920 2020
	0008 0014 9aea a70c bfd8 cb56 781e f2b5 b2d3 f249 c1b5 71a2
	8028 0004 e57a 3bcf`)

// rfc5769IPv4Response is §2.2 "Sample IPv4 Response": XOR-MAPPED-ADDRESS 192.0.2.1 port 32853.
var rfc5769IPv4Response = hexBytes(`
	0101 003c 2112 a442
	b7e7 a701 bc34 d686 fa87 dfae
	8022 000b 7465 7374 2076 6563 746f 7220
	0020 0008 0001 a147 e112 a643
	0008 0014 2b91 f599 fd9e 90c3 8c74 89f9 2af9 ba53 f06b e7d7
	8028 0004 c07d 4c96`)

// rfc5769IPv6Response is §2.3 "Sample IPv6 Response": XOR-MAPPED-ADDRESS
// 2001:db8:1234:5678:11:2233:4455:6677 port 32853.
var rfc5769IPv6Response = hexBytes(`
	0101 0048 2112 a442
	b7e7 a701 bc34 d686 fa87 dfae
	8022 000b 7465 7374 2076 6563 746f 7220
	0020 0014 0002 a147 0113 a9fa a5d3 f179 bc25 f4b5 bed2 b9d9
	0008 0014 a382 954e 4be6 7bf1 1784 c97c 8292 c275 bfe3 ed41
	8028 0004 c8fb 0b4c`)

var rfc5769TxID = stunTxID(hexBytes("b7e7 a701 bc34 d686 fa87 dfae"))

func hexBytes(s string) []byte {
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		panic(err)
	}
	return b
}

// checkMessageIntegrity verifies RFC 5389 §15.4: HMAC-SHA1 over the message up to MESSAGE-INTEGRITY,
// with the header length covering MESSAGE-INTEGRITY but not FINGERPRINT. It proves the vectors were
// typed right, independently of the decoder.
func checkMessageIntegrity(t *testing.T, msg []byte) {
	t.Helper()
	off := stunHeaderLen
	for off < len(msg) {
		typ := binary.BigEndian.Uint16(msg[off:])
		alen := int(binary.BigEndian.Uint16(msg[off+2:]))
		if typ == 0x0008 {
			in := bytes.Clone(msg[:off])
			binary.BigEndian.PutUint16(in[2:], uint16(off-stunHeaderLen+24))
			mac := hmac.New(sha1.New, []byte(rfc5769Password))
			mac.Write(in)
			if got, want := msg[off+4:off+24], mac.Sum(nil); !bytes.Equal(got, want) {
				t.Fatalf("MESSAGE-INTEGRITY %x, computed %x: the vector is mistyped", got, want)
			}
			return
		}
		off += 4 + (alen+3)&^3
	}
	t.Fatal("no MESSAGE-INTEGRITY")
}

func TestSTUNCodecRFC5769Vectors(t *testing.T) {
	for _, tc := range []struct {
		name string
		msg  []byte
		typ  uint16
		want netip.AddrPort
	}{
		{"request", rfc5769Request, stunBindingRequest, netip.AddrPort{}},
		{"IPv4 response", rfc5769IPv4Response, stunBindingSuccess, netip.MustParseAddrPort("192.0.2.1:32853")},
		{"IPv6 response", rfc5769IPv6Response, stunBindingSuccess, netip.MustParseAddrPort("[2001:db8:1234:5678:11:2233:4455:6677]:32853")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkMessageIntegrity(t, tc.msg)
			m, err := parseStunMessage(tc.msg)
			if err != nil {
				t.Fatal(err)
			}
			if m.Type != tc.typ || m.TxID != rfc5769TxID || !m.Fingerprint {
				t.Fatalf("type %#04x txid %x fingerprint %v", m.Type, m.TxID, m.Fingerprint)
			}
			got, ok := m.MappedAddress()
			if ok != tc.want.IsValid() || got != tc.want {
				t.Fatalf("mapped address %v (%v), want %v", got, ok, tc.want)
			}
		})
	}
}

// The encoder writes what the RFC's decoder-side vector holds: the same XOR-MAPPED-ADDRESS bytes.
func TestSTUNCodecEncodesRFC5769Address(t *testing.T) {
	for _, tc := range []struct {
		addr string
		want []byte
	}{
		{"192.0.2.1:32853", hexBytes("0020 0008 0001 a147 e112 a643")},
		{"[2001:db8:1234:5678:11:2233:4455:6677]:32853", hexBytes("0020 0014 0002 a147 0113 a9fa a5d3 f179 bc25 f4b5 bed2 b9d9")},
	} {
		got := appendStunAddress(nil, stunAttrXORMappedAddress, netip.MustParseAddrPort(tc.addr), rfc5769TxID)
		if !bytes.Equal(got, tc.want) {
			t.Errorf("%s: %x, want %x", tc.addr, got, tc.want)
		}
	}
}

func TestSTUNCodecRoundTrip(t *testing.T) {
	id := stunTxID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	req := appendStunBindingRequest(nil, id)
	if want := hexBytes("0001 0000 2112a442 0102030405060708090a0b0c"); !bytes.Equal(req, want) {
		t.Fatalf("request %x, want %x", req, want)
	}
	for _, addr := range []string{"203.0.113.9:40000", "[2001:db8::9]:1", "0.0.0.0:0"} {
		for _, xor := range []bool{true, false} {
			ap := netip.MustParseAddrPort(addr)
			m, err := parseStunMessage(appendStunBindingSuccess(nil, id, ap, xor))
			if err != nil {
				t.Fatalf("%s xor=%v: %v", addr, xor, err)
			}
			got, _ := m.MappedAddress()
			if got != ap || m.TxID != id || m.Type != stunBindingSuccess || !m.Fingerprint || m.XORMapped.IsValid() != xor {
				t.Fatalf("%s xor=%v: decoded %+v", addr, xor, m)
			}
		}
	}
}

// XOR-MAPPED-ADDRESS wins over MAPPED-ADDRESS when a server sends both (RFC 5389 §15.2 says a NAT may
// rewrite the plain one).
func TestSTUNCodecPrefersXORMapped(t *testing.T) {
	id := stunTxID{9}
	msg := appendStunHeader(nil, stunBindingSuccess, 0, id)
	msg = appendStunAddress(msg, stunAttrMappedAddress, netip.MustParseAddrPort("192.168.1.2:5"), id)
	msg = appendStunAddress(msg, stunAttrXORMappedAddress, netip.MustParseAddrPort("198.51.100.2:5"), id)
	binary.BigEndian.PutUint16(msg[2:], uint16(len(msg)-stunHeaderLen))
	m, err := parseStunMessage(msg)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := m.MappedAddress(); got.Addr().String() != "198.51.100.2" {
		t.Fatalf("got %v", got)
	}
}

func TestSTUNCodecRejectsMalformed(t *testing.T) {
	good := rfc5769IPv4Response
	mutate := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	for _, tc := range []struct {
		name string
		msg  []byte
		want string
	}{
		{"short", good[:19], "shorter than the 20-byte header"},
		{"top bits", mutate(func(b []byte) []byte { b[0] |= 0x80; return b }), "first two bits"},
		{"cookie", mutate(func(b []byte) []byte { b[4] = 0; return b }), "magic cookie"},
		{"length not multiple of 4", mutate(func(b []byte) []byte { b[3] = 0x3b; return b }), "multiple of 4"},
		{"length mismatch", good[:len(good)-4], "bytes follow the header"},
		{"fingerprint", mutate(func(b []byte) []byte { b[len(b)-1] ^= 1; return b }), "FINGERPRINT"},
		{"flipped address bit", mutate(func(b []byte) []byte { b[43] ^= 1; return b }), "FINGERPRINT"},
		{"attribute overruns", append(appendStunHeader(nil, stunBindingSuccess, 8, stunTxID{}), 0, 0x20, 0, 0x40, 0, 0, 0, 0), "runs past the message"},
		{"bad family", append(appendStunHeader(nil, stunBindingSuccess, 12, stunTxID{}), 0, 0x20, 0, 8, 0, 3, 0, 0, 1, 2, 3, 4), "unknown address family"},
		{"IPv6 family, IPv4 length", append(appendStunHeader(nil, stunBindingSuccess, 12, stunTxID{}), 0, 0x20, 0, 8, 0, 2, 0, 0, 1, 2, 3, 4), "want 20"},
		{"not STUN", []byte("HTTP/1.1 400 Bad Request\r\n\r\n"), "not a STUN message"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseStunMessage(tc.msg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestSTUNCodecErrorResponse(t *testing.T) {
	id := stunTxID{7}
	msg := appendStunHeader(nil, stunBindingError, 0, id)
	msg = append(msg, 0, 0x09, 0, 4+12, 0, 0, 4, 20)
	msg = append(msg, "Unauthorize"...)
	msg = append(msg, 'd')
	binary.BigEndian.PutUint16(msg[2:], uint16(len(msg)-stunHeaderLen))
	m, err := parseStunMessage(msg)
	if err != nil {
		t.Fatal(err)
	}
	if m.ErrorCode != 420 || m.ErrorText != "Unauthorized" {
		t.Fatalf("%d %q", m.ErrorCode, m.ErrorText)
	}
}
