package endpoint

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// checkRData checks the text of an MX, SRV, NAPTR, TLSA or CAA target field by field. external-dns
// v0.23 checks MX ("<preference> <host>") and SRV ("<priority> <weight> <port> <host>.") the same way,
// wants NAPTR data to end with a dot and TLSA data not to; zonekeeper also checks the numbers of
// NAPTR, TLSA and CAA so that a typo is a problem on the object rather than an UPDATE the server
// refuses. It returns the target with its spaces trimmed.
func checkRData(recordType, target string) (string, error) {
	t := strings.TrimSpace(target)
	f := strings.Fields(t)
	switch recordType {
	case RecordTypeMX:
		if len(f) != 2 {
			return "", fmt.Errorf("MX data is <preference> <host>, e.g. \"10 mail.example.com\"")
		}
		return t, uintField("preference", f[0], 16)
	case RecordTypeSRV:
		if len(f) != 4 {
			return "", fmt.Errorf("SRV data is <priority> <weight> <port> <host>., e.g. \"10 5 5060 sip.example.com.\"")
		}
		if !strings.HasSuffix(f[3], ".") {
			return "", fmt.Errorf("the SRV target host must end with a dot")
		}
		return t, firstError(uintField("priority", f[0], 16), uintField("weight", f[1], 16), uintField("port", f[2], 16))
	case RecordTypeNAPTR:
		if len(f) < 6 {
			return "", fmt.Errorf("NAPTR data is <order> <preference> \"<flags>\" \"<service>\" \"<regexp>\" <replacement>.")
		}
		if !strings.HasSuffix(t, ".") {
			return "", fmt.Errorf("the NAPTR replacement must end with a dot (\".\" for none)")
		}
		return t, firstError(uintField("order", f[0], 16), uintField("preference", f[1], 16))
	case RecordTypeTLSA:
		if len(f) < 4 {
			return "", fmt.Errorf("TLSA data is <usage> <selector> <matching type> <hex data>, e.g. \"3 1 1 0a1b...\"")
		}
		// The ranges and digest lengths of RFC 6698 section 2.1, as external-dns v0.23's NewTLSARecord
		// checks them (endpoint/tlsa.go).
		if err := firstError(maxField("usage", f[0], 3), maxField("selector", f[1], 1), maxField("matching type", f[2], 2)); err != nil {
			return "", err
		}
		data := strings.Join(f[3:], "")
		if _, err := hex.DecodeString(data); err != nil {
			return "", fmt.Errorf("the TLSA certificate data is not hexadecimal (without colons)")
		}
		if want := map[string]int{"1": 64, "2": 128}[f[2]]; want != 0 && len(data) != want {
			return "", fmt.Errorf("matching type %s needs a %d-character hexadecimal digest, not %d", f[2], want, len(data))
		}
		return t, nil
	case RecordTypeCAA:
		if len(f) < 3 {
			return "", fmt.Errorf("CAA data is <flags> <tag> \"<value>\", e.g. 0 issue \"letsencrypt.org\"")
		}
		if err := uintField("flags", f[0], 8); err != nil {
			return "", err
		}
		for _, r := range f[1] {
			if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
				return "", fmt.Errorf("the CAA tag %q is not letters and digits", f[1])
			}
		}
		return t, nil
	}
	if t == "" {
		return "", fmt.Errorf("empty target")
	}
	return t, nil
}

func uintField(name, s string, bits int) error {
	if _, err := strconv.ParseUint(s, 10, bits); err != nil {
		return fmt.Errorf("the %s %q is not a number from 0 to %d", name, s, uint64(1)<<bits-1)
	}
	return nil
}

// maxField is a small number from 0 to max.
func maxField(name, s string, max uint64) error {
	if v, err := strconv.ParseUint(s, 10, 8); err != nil || v > max {
		return fmt.Errorf("the %s %q is not a number from 0 to %d", name, s, max)
	}
	return nil
}

func firstError(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// IsReverseName reports whether name lies below in-addr.arpa or ip6.arpa, where PTR records live
// (external-dns v0.23 refuses a PTR elsewhere).
func IsReverseName(name string) bool {
	n := strings.ToLower(strings.TrimSuffix(name, "."))
	return InDomain(n, "in-addr.arpa") && n != "in-addr.arpa" || InDomain(n, "ip6.arpa") && n != "ip6.arpa"
}
