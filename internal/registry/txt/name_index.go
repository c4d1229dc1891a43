package txt

import (
	"hash/maphash"
	"iter"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// nameIndex is the cache's index of record sets by name: the first entry of each name's chain (see
// state.entries), found by the lower-cased name without its trailing dot (nameKey).
//
// It is an open-addressed table of the chains' first entries with one tag byte per slot, not a map
// by name: the name is read off the entry (entryName), so a slot costs 9 bytes against the 24 of a
// map[string]*entry slot and its share of control bytes: about 15 bytes a name instead of 41 at
// 20,000 names, two per owned record (issue 15). A lookup reads the tags, which sit together, and
// follows an entry only when its tag matches, as a Go map compares its control bytes first.
type nameIndex struct {
	heads []*entry // len a power of two, or 0
	// tags holds, per slot, 0 when it is empty, else the top 7 bits of its name's hash with the top
	// bit set.
	tags []uint8
	used int
	seed maphash.Seed
}

// The table grows (doubles) before more than 7 slots in 8 are used, as a Go map does.
const (
	indexLoadNum, indexLoadDen = 7, 8
	minIndexSlots              = 8
)

// newNameIndex returns an index with room for hint names.
func newNameIndex(hint int) nameIndex {
	x := nameIndex{seed: maphash.MakeSeed()}
	n := minIndexSlots
	for n*indexLoadNum < hint*indexLoadDen {
		n *= 2
	}
	x.heads, x.tags = make([]*entry, n), make([]uint8, n)
	return x
}

// nameKey is the name an index and cacheKey file a record set under: lower-cased, no trailing dot.
func nameKey(name string) string { return strings.ToLower(strings.TrimSuffix(name, ".")) }

// entryName is the name of an entry's record set as the provider spells it.
func entryName(en *entry) string {
	if en.ep == nil {
		return en.own.name // a compact ownership TXT (compactListed)
	}
	return en.ep.DNSName
}

// filedUnder reports whether nameKey(name) is key, without building nameKey(name) for an ASCII name.
func filedUnder(name, key string) bool {
	name = strings.TrimSuffix(name, ".")
	if len(name) != len(key) {
		return !endpoint.IsASCII(name) && strings.ToLower(name) == key // lower-casing may change the length
	}
	for i := range len(name) {
		c := name[i]
		if c >= 0x80 {
			return strings.ToLower(name) == key
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != key[i] {
			return false
		}
	}
	return true
}

// find returns the slot of key, or the empty slot where it would go (found false), and key's tag.
func (x *nameIndex) find(key string) (slot int, tag uint8, found bool) {
	h := maphash.String(x.seed, key)
	tag = uint8(h>>57) | 0x80
	mask := len(x.heads) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		switch t := x.tags[i]; {
		case t == 0:
			return i, tag, false
		case t == tag && filedUnder(entryName(x.heads[i]), key):
			return i, tag, true
		}
	}
}

// get returns the first entry filed under key, or nil.
func (x *nameIndex) get(key string) *entry {
	if i, _, ok := x.find(key); ok {
		return x.heads[i]
	}
	return nil
}

// set files first (not nil) as the first entry under key, in place of any.
func (x *nameIndex) set(key string, first *entry) {
	i, tag, ok := x.find(key)
	if !ok && (x.used+1)*indexLoadDen > len(x.heads)*indexLoadNum {
		x.grow()
		i, tag, _ = x.find(key)
	}
	if !ok {
		x.used++
	}
	x.heads[i], x.tags[i] = first, tag
}

// del removes key. The slots after it that it had pushed along are moved back (linear probing's
// deletion without tombstones), so that a lookup still stops at the first empty slot.
func (x *nameIndex) del(key string) {
	i, _, ok := x.find(key)
	if !ok {
		return
	}
	x.heads[i], x.tags[i] = nil, 0
	x.used--
	mask := len(x.heads) - 1
	for j := (i + 1) & mask; x.tags[j] != 0; j = (j + 1) & mask {
		home := int(maphash.String(x.seed, nameKey(entryName(x.heads[j])))) & mask
		// The entry at j stays unless the empty slot i lies between its home and j.
		if i <= j && (home <= i || home > j) || i > j && home <= i && home > j {
			x.heads[i], x.tags[i] = x.heads[j], x.tags[j]
			x.heads[j], x.tags[j] = nil, 0
			i = j
		}
	}
}

// grow doubles the table.
func (x *nameIndex) grow() {
	old := x.heads
	x.heads, x.tags = make([]*entry, 2*len(old)), make([]uint8, 2*len(old))
	for _, first := range old {
		if first != nil {
			i, tag, _ := x.find(nameKey(entryName(first)))
			x.heads[i], x.tags[i] = first, tag
		}
	}
}

// firsts yields the first entry of every name.
func (x *nameIndex) firsts() iter.Seq[*entry] {
	return func(yield func(*entry) bool) {
		for _, first := range x.heads {
			if first != nil && !yield(first) {
				return
			}
		}
	}
}
