package aws

import "github.com/zonekeeper/zonekeeper/internal/endpoint"

// Route 53 stores a record set otherwise than the TXT registry wrote it in two ways that matter:
// a record written without a TTL (the commonest: no TTL annotation, which AdjustEndpoints keeps
// unset so that it never causes an update) is stored and listed with the default TTL, and an
// ownership TXT keeps none of its alias record's alias properties (TestRoute53NormalisesWhatACallerWrote
// lists the rest, for callers that skip AdjustEndpoints). ApplyChanges patches this provider's cache
// with what Route 53 stores, so its Records after a write is exactly the cache; the registry patches
// its own cache with ListedForm's answer instead of what it sent, and both stay tied to the listing
// version without listing again (issue 15: the resync after events then plans nothing at 20,000
// Ingresses either).

// ListsExactlyWhatItWrote implements provider.ExactWriter: Records answers from the cache, which
// ApplyChanges patches with the accepted record sets in the form Route 53 stores them, and which
// nothing else changes but a probe or relisting that also moves the listing version.
func (p *Provider) ListsExactlyWhatItWrote() bool { return true }

// ListedForm implements provider.ListedFormer: the record sets at keys as Records lists them now,
// from the cache (the first zone of the zone list holding the key, as cachedEndpoints lists it); nil
// for a key no cached zone holds. The names are the stored keys' strings, not the caller's: a registry
// that keeps the answer shares them with this cache (a set listed, then updated with a name the caller
// built again, as the TXT registry builds a TXT name).
func (p *Provider) ListedForm(keys []endpoint.Key) ([]*endpoint.Endpoint, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]*endpoint.Endpoint, len(keys))
	for i, key := range keys {
		k := rrKey{normName(key.DNSName), key.RecordType, key.SetIdentifier}
		for _, z := range p.zoneList {
			c := p.contents[z.id]
			if c == nil {
				continue
			}
			if j, ok := c.find(k); ok {
				stored := &c.entries[j] // its key's name: the string Records hands out, which the registry then keeps
				out[i] = p.listedLocked(c.keyOf(stored), stored.set(), z)
				break
			}
		}
	}
	return out, true
}
