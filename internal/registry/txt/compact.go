package txt

import (
	"math"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// An ownership TXT as a provider lists it is, in the common case, a name, a TTL and one value: no set
// identifier, no properties, no labels. Its entry then keeps those three in its parsed ownership
// (ownership.name, value, ttl) instead of the listed endpoint, which with its targets slice cost 128
// bytes per owned name against 32 more bytes of ownership (issue 15). The strings are the listed
// endpoint's own, shared with whoever else holds them (the provider's cache). listedCopy rebuilds
// that endpoint exactly.

// compactListed stores the listed ownership TXT e in own and reports whether it could: whether e
// is in the common form.
func compactListed(e *endpoint.Endpoint, own *ownership) bool {
	if e.RecordType != endpoint.RecordTypeTXT || e.SetIdentifier != "" || len(e.Targets) != 1 ||
		e.ProviderSpecific != nil || len(e.Labels) != 0 || e.RecordTTL < 0 || e.RecordTTL > math.MaxUint32 {
		return false
	}
	own.name, own.value, own.ttl, own.noLabels = e.DNSName, e.Targets[0], uint32(e.RecordTTL), e.Labels != nil
	return true
}

// listedTXT is the listed endpoint compactListed stored in own, as a fresh copy (what DeepCopy of it
// gives).
func (own *ownership) listedTXT() *endpoint.Endpoint {
	e := &endpoint.Endpoint{DNSName: own.name, Targets: endpoint.Targets{own.value}, RecordType: endpoint.RecordTypeTXT,
		RecordTTL: endpoint.TTL(own.ttl)}
	if own.noLabels {
		e.Labels = endpoint.Labels{}
	}
	return e
}
