package plan

import (
	"slices"
	"strings"
)

// nameSorter sorts the lists of a plan's result by name with a radix sort on eight bytes of the name
// at a time, and by the list's own order only among entries of one name. Comparing the names of 10^4
// changes two at a time read each name from memory a dozen times; here each is read once or twice.
// Its buffer is reused from list to list.
type nameSorter struct {
	keys, spare []prefixed
}

// prefixed is an entry of a list being sorted: at is its index in the list, and prefix eight bytes of
// its name (big-endian, so that numbers order as the bytes do) or, once the names are exhausted, the
// name's length.
type prefixed struct {
	prefix uint64
	at     int32
}

// smallRun is the length up to which a run of names is finished by insertion rather than by another
// round of radix sort.
const smallRun = 16

// sortByName sorts list as compare does. compare must order first by name (as strings compare), then
// by anything else; name returns an entry's name.
func sortByName[T any](s *nameSorter, list []T, name func(T) string, compare func(a, b T) int) {
	n := len(list)
	if n <= smallRun {
		slices.SortFunc(list, compare)
		return
	}
	if cap(s.keys) < n {
		s.keys, s.spare = make([]prefixed, n), make([]prefixed, n)
	}
	keys, spare := s.keys[:n], s.spare[:n]
	for i := range keys {
		keys[i].at = int32(i)
	}
	nameOf := func(k prefixed) string { return name(list[k.at]) }
	sortRange(keys, spare, nameOf, 0)

	// Put the list in the order of keys, following each cycle of the permutation; a key whose at
	// equals its own index is in place.
	for i := range keys {
		if int(keys[i].at) == i {
			continue
		}
		held, to := list[i], i
		for {
			from := int(keys[to].at)
			keys[to].at = int32(to)
			if from == i {
				list[to] = held
				break
			}
			list[to] = list[from]
			to = from
		}
	}
	// Entries of one name are now together; order them as compare does.
	for start := 0; start < n; {
		end := start + 1
		for end < n && name(list[end]) == name(list[start]) {
			end++
		}
		if end-start > 1 {
			slices.SortFunc(list[start:end], compare)
		}
		start = end
	}
}

// sortRange orders keys by name, of which the first offset bytes are the same for them all, leaving
// equal names next to each other. spare is as long as keys.
func sortRange(keys, spare []prefixed, name func(prefixed) string, offset int) {
	if len(keys) <= smallRun {
		insertionSortByName(keys, name)
		return
	}
	exhausted := true
	for i := range keys {
		s := name(keys[i])
		if len(s) > offset {
			exhausted = false
			break
		}
	}
	for i := range keys {
		s := name(keys[i])
		if exhausted {
			// The names agree on every byte they have (padding compares as a zero byte): the shorter
			// is the smaller, and equal lengths are equal names.
			keys[i].prefix = uint64(len(s))
		} else {
			keys[i].prefix = bigEndianAt(s, offset)
		}
	}
	radixSort(keys, spare)
	if exhausted {
		return
	}
	for start := 0; start < len(keys); {
		end := start + 1
		for end < len(keys) && keys[end].prefix == keys[start].prefix {
			end++
		}
		if end-start > 1 {
			sortRange(keys[start:end], spare[start:end], name, offset+8)
		}
		start = end
	}
}

// bigEndianAt is the eight bytes of s from offset as a number, zero bytes past its end.
func bigEndianAt(s string, offset int) uint64 {
	var p uint64
	if len(s) >= offset+8 {
		b := s[offset : offset+8]
		return uint64(b[0])<<56 | uint64(b[1])<<48 | uint64(b[2])<<40 | uint64(b[3])<<32 |
			uint64(b[4])<<24 | uint64(b[5])<<16 | uint64(b[6])<<8 | uint64(b[7])
	}
	for i := offset; i < offset+8; i++ {
		p <<= 8
		if i < len(s) {
			p |= uint64(s[i])
		}
	}
	return p
}

// radixSort sorts keys by prefix, a byte at a time from the lowest; bytes in which all prefixes agree
// are skipped. It is stable. spare is as long as keys.
func radixSort(keys, spare []prefixed) {
	var counts [8][256]int32
	for _, k := range keys {
		for b := range 8 {
			counts[b][byte(k.prefix>>(8*b))]++
		}
	}
	src, dst := keys, spare
	for b := range 8 {
		c := &counts[b]
		if c[byte(src[0].prefix>>(8*b))] == int32(len(src)) {
			continue // every prefix has this byte
		}
		var sum int32
		for d, count := range c {
			c[d] = sum
			sum += count
		}
		for _, k := range src {
			d := byte(k.prefix >> (8 * b))
			dst[c[d]] = k
			c[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
}

// insertionSortByName orders a few keys by name.
func insertionSortByName(keys []prefixed, name func(prefixed) string) {
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && strings.Compare(name(keys[j-1]), name(keys[j])) > 0; j-- {
			keys[j-1], keys[j] = keys[j], keys[j-1]
		}
	}
}
