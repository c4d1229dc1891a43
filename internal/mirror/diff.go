package mirror

import (
	"bytes"
	"sort"
)

// diff returns the writes that turn current into desired: a put for every key that is missing or
// holds other bytes, and (with deleteStale) a delete for every current key that is not desired. Keys
// are sorted so runs are reproducible.
func diff(desired, current map[string][]byte, deleteStale bool) writes {
	var w writes
	for k, v := range desired {
		if cur, ok := current[k]; !ok || !bytes.Equal(cur, v) {
			w.puts = append(w.puts, put{key: k, value: v})
		}
	}
	if deleteStale {
		for k := range current {
			if _, ok := desired[k]; !ok {
				w.deletes = append(w.deletes, k)
			}
		}
	}
	sort.Slice(w.puts, func(i, j int) bool { return w.puts[i].key < w.puts[j].key })
	sort.Strings(w.deletes)
	return w
}
