package coredns

import (
	"encoding/json"
	"net/netip"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// skydnsValue is the part of the JSON stored at a key (CoreDNS's msg.Service) that zonekeeper reads.
// Other fields (external-dns's "owner", SRV ports and weights) are ignored; an entry zonekeeper does
// not touch keeps them, an entry it rewrites loses them.
type skydnsValue struct {
	Host        string `json:"host,omitempty"`
	Text        string `json:"text,omitempty"`
	TTL         uint32 `json:"ttl,omitempty"`
	TargetStrip int    `json:"targetstrip,omitempty"`
	Group       string `json:"group,omitempty"`
}

// writtenValue is the exact shape zonekeeper writes, in external-dns's field order: host or text,
// never both (a CNAME entry that also carries text is served by CoreDNS as TXT only — external-dns
// #4953), an explicit ttl when the endpoint sets one, targetstrip 1 for the record id, and the group.
type writtenValue struct {
	Host        string `json:"host,omitempty"`
	Text        string `json:"text,omitempty"`
	TTL         uint32 `json:"ttl,omitempty"`
	TargetStrip int    `json:"targetstrip"`
	Group       string `json:"group,omitempty"`
}

// record is one (type, target) pair with the attributes stored beside it.
type record struct {
	Type   string
	Target string
	TTL    endpoint.TTL
	Group  string
}

// encode returns the value stored for a record. targetStrip is the number of key elements below the
// name: 1 for a key with a record id, 0 for the name's own key.
func (r record) encode(targetStrip int) []byte {
	v := writtenValue{TTL: uint32(r.TTL), TargetStrip: targetStrip, Group: r.Group}
	if r.Type == endpoint.RecordTypeTXT {
		v.Text = r.Target
	} else {
		v.Host = r.Target
	}
	b, _ := json.Marshal(v) // cannot fail: strings and integers only
	return b
}

// decodeValue parses a stored value. An entry holding both host and text (as external-dns writes when
// a TXT shares a name with an A) yields two records.
func decodeValue(raw []byte) (skydnsValue, []record, error) {
	var v skydnsValue
	if err := json.Unmarshal(raw, &v); err != nil {
		return v, nil, err
	}
	var out []record
	if v.Host != "" {
		rt, target := classifyHost(v.Host)
		out = append(out, record{Type: rt, Target: target, TTL: endpoint.TTL(v.TTL), Group: v.Group})
	}
	if v.Text != "" {
		out = append(out, record{Type: endpoint.RecordTypeTXT, Target: v.Text, TTL: endpoint.TTL(v.TTL), Group: v.Group})
	}
	return v, out, nil
}

// classifyHost guesses the type from the host, as CoreDNS answers it: an IPv4 address is A, an IPv6
// address AAAA, anything else a CNAME. Targets come back in canonical form.
func classifyHost(host string) (recordType, target string) {
	if a, err := netip.ParseAddr(host); err == nil {
		if a.Unmap().Is4() {
			return endpoint.RecordTypeA, a.Unmap().String()
		}
		return endpoint.RecordTypeAAAA, a.String()
	}
	return endpoint.RecordTypeCNAME, strings.ToLower(strings.TrimSuffix(host, "."))
}
