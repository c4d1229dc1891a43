package publicip

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"net/netip"
)

// The small part of STUN (RFC 5389) a Binding request needs: the 20-byte header, the address
// attributes and FINGERPRINT. Decoding a success response does not allocate.

const (
	stunHeaderLen   = 20
	stunMagicCookie = 0x2112A442

	stunBindingRequest = 0x0001
	stunBindingSuccess = 0x0101
	stunBindingError   = 0x0111

	stunAttrMappedAddress    = 0x0001
	stunAttrErrorCode        = 0x0009
	stunAttrXORMappedAddress = 0x0020
	stunAttrFingerprint      = 0x8028

	stunFamilyIPv4 = 0x01
	stunFamilyIPv6 = 0x02

	// stunFingerprintXOR is "STUN" in ASCII (RFC 5389 §15.5).
	stunFingerprintXOR = 0x5354554e
)

// stunTxID is a transaction ID: 96 random bits chosen by the client.
type stunTxID [12]byte

// stunMessage is a decoded message: the header and the attributes a client acts on.
type stunMessage struct {
	Type      uint16
	TxID      stunTxID
	XORMapped netip.AddrPort // XOR-MAPPED-ADDRESS, invalid when absent
	Mapped    netip.AddrPort // MAPPED-ADDRESS, invalid when absent
	ErrorCode int            // ERROR-CODE class*100+number, 0 when absent
	ErrorText string         // reason phrase of ERROR-CODE (points into the packet)
	// Fingerprint reports whether a FINGERPRINT attribute was present (and therefore checked).
	Fingerprint bool
}

// MappedAddress is the reflexive address the server saw: XOR-MAPPED-ADDRESS, or MAPPED-ADDRESS from a
// server that only speaks RFC 3489.
func (m *stunMessage) MappedAddress() (netip.AddrPort, bool) {
	if m.XORMapped.IsValid() {
		return m.XORMapped, true
	}
	if m.Mapped.IsValid() {
		return m.Mapped, true
	}
	return netip.AddrPort{}, false
}

// appendStunBindingRequest appends a Binding request with no attributes.
func appendStunBindingRequest(dst []byte, id stunTxID) []byte {
	return appendStunHeader(dst, stunBindingRequest, 0, id)
}

func appendStunHeader(dst []byte, typ, length uint16, id stunTxID) []byte {
	dst = binary.BigEndian.AppendUint16(dst, typ)
	dst = binary.BigEndian.AppendUint16(dst, length)
	dst = binary.BigEndian.AppendUint32(dst, stunMagicCookie)
	return append(dst, id[:]...)
}

// appendStunBindingSuccess appends a Binding success response carrying addr as XOR-MAPPED-ADDRESS
// (xor true) or MAPPED-ADDRESS, followed by a FINGERPRINT. It is what a server sends; the tests' STUN
// server and the benchmarks use it.
func appendStunBindingSuccess(dst []byte, id stunTxID, addr netip.AddrPort, xor bool) []byte {
	start := len(dst)
	dst = appendStunHeader(dst, stunBindingSuccess, 0, id)
	typ := uint16(stunAttrMappedAddress)
	if xor {
		typ = stunAttrXORMappedAddress
	}
	dst = appendStunAddress(dst, typ, addr, id)
	dst = appendStunFingerprint(dst, start)
	return dst
}

// appendStunAddress appends a (XOR-)MAPPED-ADDRESS attribute (RFC 5389 §15.1, §15.2).
func appendStunAddress(dst []byte, typ uint16, addr netip.AddrPort, id stunTxID) []byte {
	ip := addr.Addr().Unmap()
	family, n := byte(stunFamilyIPv4), 4
	if ip.Is6() {
		family, n = stunFamilyIPv6, 16
	}
	dst = binary.BigEndian.AppendUint16(dst, typ)
	dst = binary.BigEndian.AppendUint16(dst, uint16(4+n))
	dst = append(dst, 0, family)
	port := addr.Port()
	raw := ip.AsSlice()
	if typ == stunAttrXORMappedAddress {
		port ^= stunMagicCookie >> 16
		key := stunXORKey(id)
		for i := range raw {
			raw[i] ^= key[i]
		}
	}
	dst = binary.BigEndian.AppendUint16(dst, port)
	return append(dst, raw...)
}

// appendStunFingerprint fixes the length field of the message starting at msg[start:] to include a
// FINGERPRINT attribute and appends it (RFC 5389 §15.5).
func appendStunFingerprint(dst []byte, start int) []byte {
	binary.BigEndian.PutUint16(dst[start+2:], uint16(len(dst)-start-stunHeaderLen+8))
	crc := crc32.ChecksumIEEE(dst[start:]) ^ stunFingerprintXOR
	dst = binary.BigEndian.AppendUint16(dst, stunAttrFingerprint)
	dst = binary.BigEndian.AppendUint16(dst, 4)
	return binary.BigEndian.AppendUint32(dst, crc)
}

// stunXORKey is what X-Address is XORed with: the magic cookie then the transaction ID.
func stunXORKey(id stunTxID) [16]byte {
	var k [16]byte
	binary.BigEndian.PutUint32(k[:], stunMagicCookie)
	copy(k[4:], id[:])
	return k
}

var (
	errStunNotStun = errors.New("not a STUN message")
)

// parseStunMessage decodes one STUN message occupying all of b. It checks the header (zero top bits,
// magic cookie, a length that matches the datagram and is a multiple of 4), every attribute's bounds,
// and FINGERPRINT when present. Unknown attributes are skipped.
func parseStunMessage(b []byte) (stunMessage, error) {
	var m stunMessage
	if len(b) < stunHeaderLen {
		return m, fmt.Errorf("%w: %d bytes, shorter than the 20-byte header", errStunNotStun, len(b))
	}
	m.Type = binary.BigEndian.Uint16(b[0:])
	if m.Type&0xC000 != 0 {
		return m, fmt.Errorf("%w: the first two bits are not zero", errStunNotStun)
	}
	if c := binary.BigEndian.Uint32(b[4:]); c != stunMagicCookie {
		return m, fmt.Errorf("%w: magic cookie %#08x, want %#08x", errStunNotStun, c, stunMagicCookie)
	}
	length := int(binary.BigEndian.Uint16(b[2:]))
	if length%4 != 0 {
		return m, fmt.Errorf("%w: message length %d is not a multiple of 4", errStunNotStun, length)
	}
	if stunHeaderLen+length != len(b) {
		return m, fmt.Errorf("%w: message length %d but %d bytes follow the header", errStunNotStun, length, len(b)-stunHeaderLen)
	}
	copy(m.TxID[:], b[8:20])

	for off := stunHeaderLen; off < len(b); {
		if len(b)-off < 4 {
			return m, fmt.Errorf("truncated attribute header at byte %d", off)
		}
		typ := binary.BigEndian.Uint16(b[off:])
		alen := int(binary.BigEndian.Uint16(b[off+2:]))
		val := off + 4
		if alen > len(b)-val {
			return m, fmt.Errorf("attribute %#04x at byte %d: length %d runs past the message", typ, off, alen)
		}
		v := b[val : val+alen]
		next := val + (alen+3)&^3
		if next > len(b) {
			return m, fmt.Errorf("attribute %#04x at byte %d: padding runs past the message", typ, off)
		}
		var err error
		switch typ {
		case stunAttrXORMappedAddress:
			m.XORMapped, err = parseStunAddress(v, true, m.TxID)
		case stunAttrMappedAddress:
			m.Mapped, err = parseStunAddress(v, false, m.TxID)
		case stunAttrErrorCode:
			if alen < 4 {
				err = fmt.Errorf("%d bytes, want at least 4", alen)
				break
			}
			m.ErrorCode = int(v[2]&0x07)*100 + int(v[3])
			m.ErrorText = string(v[4:])
		case stunAttrFingerprint:
			// FINGERPRINT is last; the CRC covers everything before it, with the header length as sent.
			if alen != 4 || next != len(b) {
				return m, fmt.Errorf("FINGERPRINT at byte %d is not the last 8 bytes", off)
			}
			want := crc32.ChecksumIEEE(b[:off]) ^ stunFingerprintXOR
			if got := binary.BigEndian.Uint32(v); got != want {
				return m, fmt.Errorf("FINGERPRINT %#08x does not match the message (want %#08x)", got, want)
			}
			m.Fingerprint = true
		}
		if err != nil {
			return m, fmt.Errorf("attribute %#04x at byte %d: %w", typ, off, err)
		}
		off = next
	}
	return m, nil
}

// parseStunAddress decodes the value of a MAPPED-ADDRESS or XOR-MAPPED-ADDRESS attribute.
func parseStunAddress(v []byte, xor bool, id stunTxID) (netip.AddrPort, error) {
	if len(v) < 4 {
		return netip.AddrPort{}, fmt.Errorf("%d bytes, want 8 or 20", len(v))
	}
	port := binary.BigEndian.Uint16(v[2:])
	var raw [16]byte
	var n int
	switch v[1] {
	case stunFamilyIPv4:
		n = 4
	case stunFamilyIPv6:
		n = 16
	default:
		return netip.AddrPort{}, fmt.Errorf("unknown address family %#02x", v[1])
	}
	if len(v) != 4+n {
		return netip.AddrPort{}, fmt.Errorf("%d bytes for family %d, want %d", len(v), v[1], 4+n)
	}
	copy(raw[:], v[4:])
	if xor {
		port ^= stunMagicCookie >> 16
		key := stunXORKey(id)
		for i := 0; i < n; i++ {
			raw[i] ^= key[i]
		}
	}
	var ip netip.Addr
	if n == 4 {
		ip = netip.AddrFrom4([4]byte(raw[:4]))
	} else {
		ip = netip.AddrFrom16(raw)
	}
	return netip.AddrPortFrom(ip, port), nil
}
