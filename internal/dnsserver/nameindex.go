package dnsserver

import (
	"hash/maphash"
	"iter"
	"math/bits"
	"slices"
)

// nameIndex maps canonical names to their nodes. It is persistent: a batch builds the next index
// beside the current one, copying only the path from the root to each name it changes and sharing
// everything else, so a commit costs what the batch changes (about log32 N small copies per name)
// rather than a copy of every name, and an index once published never changes under its readers.
//
// It is a hash array mapped trie: each level takes trieBits bits of the name's hash and keeps only the
// slots in use (bitmap plus a dense slice), so a million names are four levels deep. The zero value is
// unusable; make one with newNameIndex.
type nameIndex struct {
	// seed and mask make the hash of a name; they are the same for every index of a view's lineage,
	// as the shared tries depend on them. mask is all ones; tests clear bits to make names collide.
	seed maphash.Seed
	mask uint64
	root *trieNode // nil when empty
	size int
}

const (
	trieBits   = 5
	trieMask   = 1<<trieBits - 1
	hashLength = 64 // bits of a maphash
)

// trieNode is one level of the trie. Below the last level of hash bits (shift ≥ hashLength) a node is
// a bucket of names whose hashes are equal: the bitmap is unused and the slots are scanned.
type trieNode struct {
	// batch is the edit that made this node; that edit alone may still change it in place, because
	// no published index reaches it yet.
	batch  *indexEdit
	bitmap uint32
	slots  []trieSlot // one per set bit of bitmap, in bit order
}

// trieSlot holds either one node (its name is node.name) or (child != nil) the next level. Two
// pointers, so that the copies a batch makes are small.
type trieSlot struct {
	n     *node
	child *trieNode
}

func newNameIndex() nameIndex { return nameIndex{seed: maphash.MakeSeed(), mask: ^uint64(0)} }

func (ix nameIndex) hash(name string) uint64 { return maphash.String(ix.seed, name) & ix.mask }

// get returns the node of a name, or nil.
func (ix nameIndex) get(name string) *node {
	h := ix.hash(name)
	t := ix.root
	for shift := 0; t != nil; shift += trieBits {
		if shift >= hashLength {
			for i := range t.slots {
				if t.slots[i].n.name == name {
					return t.slots[i].n
				}
			}
			return nil
		}
		bit := uint32(1) << (h >> shift & trieMask)
		if t.bitmap&bit == 0 {
			return nil
		}
		s := &t.slots[bits.OnesCount32(t.bitmap&(bit-1))]
		if s.child == nil {
			if s.n.name == name {
				return s.n
			}
			return nil
		}
		t = s.child
	}
	return nil
}

// len returns the number of names.
func (ix nameIndex) len() int { return ix.size }

// all yields every name and its node, in no particular order.
func (ix nameIndex) all() iter.Seq2[string, *node] {
	return func(yield func(string, *node) bool) {
		if ix.root != nil {
			ix.root.walk(yield)
		}
	}
}

func (t *trieNode) walk(yield func(string, *node) bool) bool {
	for i := range t.slots {
		s := &t.slots[i]
		if s.child != nil {
			if !s.child.walk(yield) {
				return false
			}
		} else if !yield(s.n.name, s.n) {
			return false
		}
	}
	return true
}

// indexEdit changes a copy of an index. Nodes it creates are its own and are changed in place (so a
// batch of a million names does not copy each path a million times); nodes of the index it started
// from are copied first. After done, the edit must not be used.
type indexEdit struct {
	ix nameIndex // not zero-sized: trieNode.batch tells edits apart by their addresses
}

func (ix nameIndex) edit() *indexEdit { return &indexEdit{ix: ix} }

// done returns the edited index. The edit lets go of it: every node the edit made still points at the
// edit, and an edit holding its index would keep that root, and through it every earlier one, alive.
func (e *indexEdit) done() nameIndex {
	ix := e.ix
	e.ix = nameIndex{}
	return ix
}

// own returns t if this edit made it, else a copy of t that this edit may change (a new node for nil).
func (e *indexEdit) own(t *trieNode) *trieNode {
	if t == nil {
		return &trieNode{batch: e}
	}
	if t.batch == e {
		return t
	}
	return &trieNode{batch: e, bitmap: t.bitmap, slots: slices.Clone(t.slots)}
}

// set puts n under its name, replacing the node the name had.
func (e *indexEdit) set(n *node) {
	var added bool
	e.ix.root, added = e.insert(e.ix.root, 0, e.ix.hash(n.name), n)
	if added {
		e.ix.size++
	}
}

// delete removes name, if present.
func (e *indexEdit) delete(name string) {
	if root, removed := e.remove(e.ix.root, 0, e.ix.hash(name), name); removed {
		if len(root.slots) == 0 {
			root = nil
		}
		e.ix.root = root
		e.ix.size--
	}
}

// insert puts n (whose name hashes to h) into the subtrie t at a level (shift), returning the
// subtrie's new root and whether the name is new.
func (e *indexEdit) insert(t *trieNode, shift int, h uint64, n *node) (*trieNode, bool) {
	t = e.own(t)
	if shift >= hashLength {
		for i := range t.slots {
			if t.slots[i].n.name == n.name {
				t.slots[i].n = n
				return t, false
			}
		}
		t.slots = append(t.slots, trieSlot{n: n})
		return t, true
	}
	bit := uint32(1) << (h >> shift & trieMask)
	i := bits.OnesCount32(t.bitmap & (bit - 1))
	if t.bitmap&bit == 0 {
		t.bitmap |= bit
		t.slots = slices.Insert(t.slots, i, trieSlot{n: n})
		return t, true
	}
	s := &t.slots[i]
	switch {
	case s.child != nil:
		var added bool
		s.child, added = e.insert(s.child, shift+trieBits, h, n)
		return t, added
	case s.n.name == n.name:
		s.n = n
		return t, false
	default:
		// Another name holds the slot: both go one level down.
		child, _ := e.insert(nil, shift+trieBits, e.ix.hash(s.n.name), s.n)
		child, _ = e.insert(child, shift+trieBits, h, n)
		*s = trieSlot{child: child}
		return t, true
	}
}

// remove takes name out of the subtrie t at a level (shift), returning the subtrie's new root and
// whether the name was there. A subtrie left with one name is folded into its parent's slot, so the
// trie stays as shallow as it would be had the name never been added.
func (e *indexEdit) remove(t *trieNode, shift int, h uint64, name string) (*trieNode, bool) {
	if t == nil {
		return nil, false
	}
	if shift >= hashLength {
		i := slices.IndexFunc(t.slots, func(s trieSlot) bool { return s.n.name == name })
		if i < 0 {
			return t, false
		}
		t = e.own(t)
		t.slots = slices.Delete(t.slots, i, i+1)
		return t, true
	}
	bit := uint32(1) << (h >> shift & trieMask)
	if t.bitmap&bit == 0 {
		return t, false
	}
	i := bits.OnesCount32(t.bitmap & (bit - 1))
	s := t.slots[i]
	if s.child == nil {
		if s.n.name != name {
			return t, false
		}
		t = e.own(t)
		t.bitmap &^= bit
		t.slots = slices.Delete(t.slots, i, i+1)
		return t, true
	}
	child, removed := e.remove(s.child, shift+trieBits, h, name)
	if !removed {
		return t, false
	}
	t = e.own(t)
	switch {
	case len(child.slots) == 0:
		t.bitmap &^= bit
		t.slots = slices.Delete(t.slots, i, i+1)
	case len(child.slots) == 1 && child.slots[0].child == nil:
		t.slots[i] = child.slots[0]
	default:
		t.slots[i].child = child
	}
	return t, true
}
