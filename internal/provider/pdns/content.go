package pdns

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/dnstext"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// recordTypes are the types the provider reads and writes.
var recordTypes = []string{
	endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME, endpoint.RecordTypeTXT,
	endpoint.RecordTypeMX, endpoint.RecordTypeSRV, endpoint.RecordTypeNS, endpoint.RecordTypePTR,
	endpoint.RecordTypeDNAME, endpoint.RecordTypeNAPTR, endpoint.RecordTypeTLSA, endpoint.RecordTypeCAA,
}

// toContent turns an endpoint target into PowerDNS record content: hostnames canonical with the
// trailing dot PowerDNS requires, TXT quoted, MX and SRV checked field by field.
func toContent(recordType, target string) (string, error) {
	switch recordType {
	case endpoint.RecordTypeA, endpoint.RecordTypeAAAA:
		return endpoint.ValidateTarget(recordType, target)
	case endpoint.RecordTypeCNAME, endpoint.RecordTypeNS, endpoint.RecordTypePTR, endpoint.RecordTypeDNAME:
		n, err := endpoint.ValidateTarget(recordType, target)
		if err != nil {
			return "", err
		}
		return n + ".", nil
	case endpoint.RecordTypeNAPTR, endpoint.RecordTypeTLSA, endpoint.RecordTypeCAA:
		// Zone-file data as PowerDNS takes it (external-dns v0.23 sends these as they are); checked
		// field by field first so that a typo is named rather than refused by the server.
		return endpoint.ValidateTarget(recordType, target)
	case endpoint.RecordTypeTXT:
		if _, err := endpoint.ValidateTarget(recordType, target); err != nil {
			return "", err
		}
		strs := dnstext.Strings(target)
		quoted := make([]string, len(strs))
		for i, str := range strs {
			quoted[i] = quoteTXT(str)
		}
		return strings.Join(quoted, " "), nil
	case endpoint.RecordTypeMX:
		return hostWithNumbers(target, "preference host", 1)
	case endpoint.RecordTypeSRV:
		return hostWithNumbers(target, "priority weight port host", 3)
	}
	return "", fmt.Errorf("record type %s is not supported by the pdns provider", recordType)
}

// hostWithNumbers checks "N… host" (MX: 1 number, SRV: 3), each number 0-65535, and returns it with a
// canonical host ending in a dot ("." alone stays: the SRV "no service" target).
func hostWithNumbers(target, form string, numbers int) (string, error) {
	f := strings.Fields(target)
	if len(f) != numbers+1 {
		return "", fmt.Errorf("%q is not of the form %q", target, form)
	}
	for _, n := range f[:numbers] {
		if _, err := strconv.ParseUint(n, 10, 16); err != nil {
			return "", fmt.Errorf("%q: %q is not a number from 0 to 65535", target, n)
		}
	}
	host := f[numbers]
	if host != "." {
		n, err := endpoint.NormalizeDNSName(host)
		if err != nil {
			return "", fmt.Errorf("%q: host %q: %v", target, host, err)
		}
		host = n + "."
	}
	return strings.Join(append(f[:numbers:numbers], host), " "), nil
}

// fromContent turns PowerDNS record content into an endpoint target: hostnames without the trailing
// dot (SRV keeps it, as external-dns endpoints do), TXT by dnstext's zone-file rules.
func fromContent(recordType, content string) (string, error) {
	switch recordType {
	case endpoint.RecordTypeCNAME, endpoint.RecordTypeNS, endpoint.RecordTypePTR, endpoint.RecordTypeDNAME:
		return strings.ToLower(strings.TrimSuffix(content, ".")), nil
	case endpoint.RecordTypeTXT:
		strs, err := unquoteTXT(content)
		if err != nil {
			return "", err
		}
		return dnstext.Target(strs), nil
	case endpoint.RecordTypeMX:
		return strings.TrimSuffix(content, "."), nil
	}
	return content, nil
}
