package txt

import (
	"encoding/binary"
	"hash/maphash"
	"slices"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// listingHash hashes a provider's listing, every field of every record, independently of the order
// the provider returns them in: a relisting that returns the same records hashes the same, so the
// cache built from the previous listing can be kept (Registry.load).
func listingHash(seed maphash.Seed, records []*endpoint.Endpoint) uint64 {
	var sum uint64
	var h maphash.Hash
	h.SetSeed(seed)
	var keys []string
	for _, e := range records {
		h.Reset()
		keys = hashRecord(&h, e, keys)
		sum += h.Sum64() // a sum, not an xor: two equal records do not cancel out
	}
	return sum + uint64(len(records))
}

func hashRecord(h *maphash.Hash, e *endpoint.Endpoint, keys []string) []string {
	str := func(s string) {
		h.WriteString(s)
		h.WriteByte(0)
	}
	num := func(n int64) {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(n))
		h.Write(b[:])
	}
	str(e.DNSName)
	str(e.RecordType)
	str(e.SetIdentifier)
	num(int64(e.RecordTTL))
	num(int64(len(e.Targets)))
	for _, t := range e.Targets {
		str(t)
	}
	keys = keys[:0]
	for k := range e.Labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	num(int64(len(keys)))
	for _, k := range keys {
		str(k)
		str(e.Labels[k])
	}
	num(int64(len(e.ProviderSpecific)))
	for _, p := range e.ProviderSpecific {
		str(p.Name)
		str(p.Value)
	}
	return keys
}
