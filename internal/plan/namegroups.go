package plan

import (
	"hash/maphash"
	"math/bits"
)

// groupNames numbers the distinct names of a list in order of first appearance: group[k] is the
// number of names[k], and distinct[g] the name numbered g. distinct takes the place of the front of
// names, which the caller must not read afterwards.
//
// It does what a map from name to number does, faster at the plan's sizes: a map of 10^5 names is
// megabytes, and every lookup misses the CPU cache twice. Here the names are first partitioned by
// the top bits of their hash into blocks of about a hundred, and each block is grouped with a small
// open-addressing table that stays in the cache.
func groupNames(names []string, parts int) (group []int32, distinct []string) {
	seed := maphash.MakeSeed() // the numbering does not depend on the hashes, only on first appearance
	hashes := make([]uint32, len(names))
	for k, name := range names {
		hashes[k] = hash32(seed, name)
	}
	return groupByHash(names, hashes, parts)
}

// groupByHash is groupNames with the hashes given, so that a test can make them collide. The blocks
// are grouped in the given number of parts at once. Names are
// only ever equal when their strings are: a hash is a hint, never proof.
func groupByHash(names []string, hashes []uint32, parts int) (group []int32, distinct []string) {
	n := len(names)
	group = make([]int32, n)
	if n == 0 {
		return group, nil
	}
	// 2^b blocks of about 128 names, by the top b bits of the hash; the tables use the low bits.
	b := max(0, bits.Len(uint(n))-7)
	blocks := 1 << b
	shift := uint(32 - b) // a shift by 32 gives 0: one block

	// Counting sort of the positions by block, in input order within each block.
	end := make([]int32, blocks)
	for _, h := range hashes {
		end[h>>shift]++
	}
	var sum, largest int32
	for i, c := range end {
		sum += c
		end[i] = sum - c // the block's start for now; its end once the positions are placed
		largest = max(largest, c)
	}
	// Each position with its hash: 8 bytes a name.
	order := make([]placed, n)
	for k, h := range hashes {
		i := h >> shift
		order[end[i]] = placed{hash: h, k: int32(k)}
		end[i]++
	}

	// first[k] (kept in group) is the position of the first occurrence of names[k]. Blocks are
	// independent: with parts, parts of them are grouped at once, each part with its own table.
	first := group
	var groups int
	if parts == 1 {
		groups = groupBlocks(names, order, end, 0, len(end), largest, first)
	} else {
		partGroups := make([]int, parts)
		inParts(parts, func(part int) {
			from, to := part*len(end)/parts, (part+1)*len(end)/parts
			if from < to {
				partGroups[part] = groupBlocks(names, order, end, from, to, largest, first)
			}
		})
		for _, g := range partGroups {
			groups += g
		}
	}

	// Number the groups in order of first appearance, in place: first[k] <= k, so the group of a
	// name's first occurrence is known before its later ones. distinct is written over the front of
	// names (group g <= k is written at step k, after names[g] was last read), which saves a list of
	// 10^5 strings per plan.
	distinct = names[:0:groups]
	for k := range group {
		if f := first[k]; f == int32(k) {
			group[k] = int32(len(distinct))
			distinct = append(distinct, names[k])
		} else {
			group[k] = group[f]
		}
	}
	return group, distinct
}

// hash32 is the hash of a name that grouping uses: 32 bits, so that the list of hashes is 4 bytes a
// name. Blocks take its top bits (at most 24 for 2^31 names) and the tables of about 128 names its
// low bits, so the two do not overlap.
func hash32(seed maphash.Seed, name string) uint32 {
	return uint32(maphash.String(seed, name) >> 32)
}

// placed is a name's position in the list of names with its hash: the tables index by the hash's low
// bits, and comparing it first spares most string comparisons.
type placed struct {
	hash uint32
	k    int32
}

// groupBlocks sets first[k] for the names of blocks from to to-1 and returns how many distinct names
// they hold. Block i is order[end[i-1]:end[i]] (order[:end[0]] for the first), and largest is the size
// of the largest block.
func groupBlocks(names []string, order []placed, end []int32, from, to int, largest int32, first []int32) int {
	table := make([]int32, tableSize(largest)) // 1 + an index into the block; 0 is empty
	start, groups := int32(0), 0
	if from > 0 {
		start = end[from-1]
	}
	for _, stop := range end[from:to] {
		block := order[start:stop]
		start = stop
		if len(block) == 0 {
			continue
		}
		slots := table[:tableSize(int32(len(block)))]
		mask := uint32(len(slots) - 1)
		for i := range block {
			p := &block[i]
			for s := p.hash & mask; ; s = (s + 1) & mask {
				j := slots[s]
				if j == 0 {
					slots[s] = int32(i) + 1
					first[p.k] = p.k
					groups++
					break
				}
				if q := &block[j-1]; q.hash == p.hash && names[q.k] == names[p.k] {
					first[p.k] = q.k // q came first: a block keeps input order
					break
				}
			}
		}
		clear(slots)
	}
	return groups
}

// tableSize is a power of two at least twice n, so that probe sequences stay short.
func tableSize(n int32) int {
	return max(8, 1<<bits.Len(uint(2*n)))
}
