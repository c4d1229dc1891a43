package txt

import (
	"errors"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// recordTypeTemplate in a prefix or suffix is replaced by the lower-case record type.
const recordTypeTemplate = "%{record_type}"

// mappedTypes are the record types a TXT name can encode: external-dns v0.23's mapper list (TXT and
// DNAME came in v0.22, TLSA in v0.23), plus CAA. external-dns writes "caa-<name>" for a CAA record too
// but cannot read it back (it takes it for a type-less legacy name), so its CAA records never count as
// owned; zonekeeper reads the name it writes. docs/migration.md lists the difference.
var mappedTypes = [...]string{
	endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME, endpoint.RecordTypeNS,
	endpoint.RecordTypeMX, endpoint.RecordTypePTR, endpoint.RecordTypeSRV, endpoint.RecordTypeNAPTR,
	endpoint.RecordTypeTXT, endpoint.RecordTypeDNAME, endpoint.RecordTypeTLSA, endpoint.RecordTypeCAA,
}

// Mapper turns record names into ownership TXT names and back, as external-dns's AffixNameMapper does
// (sections 6.2 and 6.4 of the behaviour reference). The split is at the first dot: the prefix goes
// before the first label, the suffix after it.
type Mapper struct {
	prefix, suffix string
	wildcard       string
	typeInAffix    bool // %{record_type} in prefix or suffix: no "<type>-" is added
}

// NewMapper returns a mapper. Prefix and suffix are mutually exclusive; all three are lower-cased, as
// external-dns does, because DNS names compare case-insensitively.
func NewMapper(prefix, suffix, wildcardReplacement string) (Mapper, error) {
	if prefix != "" && suffix != "" {
		return Mapper{}, errors.New("prefix and suffix are mutually exclusive")
	}
	m := Mapper{
		prefix:   strings.ToLower(prefix),
		suffix:   strings.ToLower(suffix),
		wildcard: strings.ToLower(wildcardReplacement),
	}
	m.typeInAffix = strings.Contains(m.prefix, recordTypeTemplate) || strings.Contains(m.suffix, recordTypeTemplate)
	return m, nil
}

// TXTName is the new-format ownership TXT name of a record: <prefix><type>-<firstlabel><suffix>.<rest>.
func (m Mapper) TXTName(name, recordType string) string {
	t := lowerType(recordType)
	host, domain := splitFirstLabel(name)
	if m.wildcard != "" && host == "*" {
		host = m.wildcard
	}
	prefix, suffix := fillType(m.prefix, t), fillType(m.suffix, t)
	// One concatenation per shape: this runs for every record on every Records call.
	switch {
	case m.typeInAffix && domain == "":
		return prefix + host + suffix
	case m.typeInAffix:
		return prefix + host + suffix + "." + domain
	case domain == "":
		return prefix + t + "-" + host + suffix
	default:
		return prefix + t + "-" + host + suffix + "." + domain
	}
}

// LegacyTXTName is the type-less TXT name written up to external-dns v0.17 (<prefix><name>, or the
// suffix after the first label). zonekeeper reads it and never writes it.
func (m Mapper) LegacyTXTName(name string) string {
	host, domain := splitFirstLabel(name)
	if m.wildcard != "" && host == "*" {
		host = m.wildcard
	}
	return join(fillType(m.prefix, "")+host+fillType(m.suffix, ""), domain)
}

// RecordName maps a TXT name back to the record it guards: the record name and its type, or "" for a
// legacy type-less name. ok is false when the name does not carry this mapper's prefix or suffix. A
// wildcard replacement is not undone (the replacement could also be a real label): the name comes back
// as the TXT spells it.
func (m Mapper) RecordName(txtName string) (name, recordType string, ok bool) {
	n := strings.ToLower(strings.TrimSuffix(txtName, "."))
	if m.suffix == "" {
		return m.dropAffix(n)
	}
	// The suffix sits after the first label and may itself contain dots: the part to strip spans one
	// label more than the suffix has dots.
	dots := strings.Count(m.suffix, ".")
	parts := strings.SplitN(n, ".", dots+2)
	if len(parts) <= dots {
		return "", "", false
	}
	head := strings.Join(parts[:dots+1], ".")
	name, recordType, ok = m.dropAffix(head)
	if !ok || len(parts) <= dots+1 {
		return name, recordType, ok
	}
	return name + "." + parts[dots+1], recordType, true
}

// dropAffix strips the prefix (or suffix) from the part of a TXT name that carries it and finds the
// type, first in the affix template, then in the default "<type>-" position.
func (m Mapper) dropAffix(s string) (string, string, bool) {
	if m.typeInAffix {
		// The longest match wins so that "aaaa" is never read as "a" followed by "aaa".
		best, bestType, bestLen := "", "", -1
		for _, t := range mappedTypes {
			lt := strings.ToLower(t)
			if m.suffix == "" {
				if p := fillType(m.prefix, lt); strings.HasPrefix(s, p) && len(p) > bestLen {
					best, bestType, bestLen = s[len(p):], t, len(p)
				}
			} else if sf := fillType(m.suffix, lt); strings.HasSuffix(s, sf) && len(sf) > bestLen {
				best, bestType, bestLen = s[:len(s)-len(sf)], t, len(sf)
			}
		}
		if bestLen >= 0 && best != "" {
			return best, bestType, true
		}
	}
	// Legacy names (and names written before %{record_type} was configured) carry the affix without
	// the template.
	prefix, suffix := fillType(m.prefix, ""), fillType(m.suffix, "")
	var rest string
	switch {
	case m.suffix == "" && strings.HasPrefix(s, prefix):
		rest = s[len(prefix):]
	case m.suffix != "" && strings.HasSuffix(s, suffix):
		rest = s[:len(s)-len(suffix)]
	default:
		return "", "", false
	}
	if rest == "" {
		return "", "", false
	}
	name, t := typeFromDefaultPosition(rest)
	return name, t, name != ""
}

// typeFromDefaultPosition reads "<type>-<label>"; anything else is a legacy name with no type.
func typeFromDefaultPosition(s string) (string, string) {
	head, rest, found := strings.Cut(s, "-")
	if !found {
		return s, ""
	}
	for _, t := range mappedTypes {
		if strings.EqualFold(head, t) {
			return rest, t
		}
	}
	return s, ""
}

// lowerType lower-cases a record type without allocating for the common ones.
func lowerType(t string) string {
	switch t {
	case endpoint.RecordTypeA:
		return "a"
	case endpoint.RecordTypeAAAA:
		return "aaaa"
	case endpoint.RecordTypeCNAME:
		return "cname"
	case endpoint.RecordTypeTXT:
		return "txt"
	}
	return strings.ToLower(t)
}

// fillType substitutes the (lower-case) type for %{record_type}; "" removes the template.
func fillType(affix, lowerType string) string {
	if !strings.Contains(affix, recordTypeTemplate) {
		return affix
	}
	return strings.ReplaceAll(affix, recordTypeTemplate, lowerType)
}

func splitFirstLabel(name string) (host, domain string) {
	host, domain, _ = strings.Cut(name, ".")
	return host, domain
}

func join(host, domain string) string {
	if domain == "" {
		return host
	}
	return host + "." + domain
}
