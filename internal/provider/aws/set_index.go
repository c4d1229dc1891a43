package aws

// setIndex is a zone's index of its record sets by key: an open-addressed table (linear probing) of
// positions in zoneContents.entries with one tag byte per slot, the key read off the entry it points
// to. A slot costs 5 bytes, about 8 a set with the table's spare room, where a map[uint64]int32 by the
// key's hash cost about 28 (issue 15: 40,000 sets at 20,000 Ingresses) and needed a second map for
// keys whose hash another key had taken. A lookup reads the tags, which sit together, and compares an
// entry's key only when its tag matches.
type setIndex struct {
	slots []int32 // the position in entries + 1; 0 when the slot is empty. len a power of two
	// tags holds, per slot, 0 when it is empty, else the top 7 bits of its key's hash with the top bit
	// set.
	tags []uint8
	used int
}

// The table doubles before more than 7 slots in 8 are used, as a Go map does.
const (
	setIndexLoadNum, setIndexLoadDen = 7, 8
	minSetIndexSlots                 = 8
)

// newSetIndex returns an index with room for hint sets.
func newSetIndex(hint int) setIndex {
	n := minSetIndexSlots
	for n*setIndexLoadNum < hint*setIndexLoadDen {
		n *= 2
	}
	return setIndex{slots: make([]int32, n), tags: make([]uint8, n)}
}

func tagOf(h uint64) uint8 { return uint8(h>>57) | 0x80 }

// slotOf returns the slot of k, or the empty slot where it would go (found false).
func (c *zoneContents) slotOf(k rrKey, h uint64) (slot int, found bool) {
	x := &c.index
	tag, mask := tagOf(h), len(x.slots)-1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		switch t := x.tags[i]; {
		case t == 0:
			return i, false
		case t == tag && c.holds(&c.entries[x.slots[i]-1], k):
			return i, true
		}
	}
}

// indexAt files position pos under k, which is not filed.
func (c *zoneContents) indexAt(k rrKey, pos int32) {
	x := &c.index
	if (x.used+1)*setIndexLoadDen > len(x.slots)*setIndexLoadNum {
		c.growIndex()
	}
	h := c.hash(k)
	i, _ := c.slotOf(k, h)
	x.slots[i], x.tags[i] = pos+1, tagOf(h)
	x.used++
}

// unindex removes k and returns its position. The slots after it that it had pushed along are moved
// back (linear probing's deletion without tombstones), so that a lookup still stops at the first
// empty slot.
func (c *zoneContents) unindex(k rrKey) (int32, bool) {
	x := &c.index
	i, ok := c.slotOf(k, c.hash(k))
	if !ok {
		return 0, false
	}
	pos := x.slots[i] - 1
	x.slots[i], x.tags[i] = 0, 0
	x.used--
	mask := len(x.slots) - 1
	for j := (i + 1) & mask; x.tags[j] != 0; j = (j + 1) & mask {
		home := int(c.hash(c.keyOf(&c.entries[x.slots[j]-1]))) & mask
		// The set at j stays unless the empty slot i lies between its home and j.
		if i <= j && (home <= i || home > j) || i > j && home <= i && home > j {
			x.slots[i], x.tags[i] = x.slots[j], x.tags[j]
			x.slots[j], x.tags[j] = 0, 0
			i = j
		}
	}
	return pos, true
}

// growIndex doubles the table.
func (c *zoneContents) growIndex() {
	old := c.index.slots
	c.index = setIndex{slots: make([]int32, 2*len(old)), tags: make([]uint8, 2*len(old)), used: c.index.used}
	for _, s := range old {
		if s != 0 {
			k := c.keyOf(&c.entries[s-1])
			h := c.hash(k)
			i, _ := c.slotOf(k, h)
			c.index.slots[i], c.index.tags[i] = s, tagOf(h)
		}
	}
}
