package dnsserver

import (
	"fmt"
	"runtime"
	"testing"
	"weak"
)

// An index that no one holds any more is collected, though later indexes share its nodes: the nodes
// an edit made point back at the edit (to tell its own nodes from shared ones), so an edit that kept
// its index after done would keep every earlier root, and with it every path each batch copied,
// alive for as long as the server runs.
func TestEarlierIndexesAreCollected(t *testing.T) {
	e := newNameIndex().edit()
	for i := range 1000 {
		e.set(&node{name: fmt.Sprintf("n%d.example.com.", i)})
	}
	ix := e.done()
	var roots []weak.Pointer[trieNode]
	for b := range 20 {
		roots = append(roots, weak.Make(ix.root))
		e := ix.edit()
		e.set(&node{name: fmt.Sprintf("n%d.example.com.", b)})
		ix = e.done()
	}
	runtime.GC()
	runtime.GC()
	for i, r := range roots {
		if r.Value() != nil {
			t.Fatalf("the root of index %d of 20 is still reachable after later batches replaced it", i)
		}
	}
	runtime.KeepAlive(ix)
}
