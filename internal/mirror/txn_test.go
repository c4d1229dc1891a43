package mirror

import (
	"fmt"
	"strings"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"
)

func TestBatchesOneTransactionWhenItFits(t *testing.T) {
	w := writes{puts: []put{{"/a", []byte("1")}, {"/b", []byte("2")}}, deletes: []string{"/c"}}
	b := w.batches(3)
	if len(b) != 1 || len(b[0]) != 3 {
		t.Fatalf("batches %v", shape(b))
	}
}

func TestBatchesPutsBeforeDeletes(t *testing.T) {
	var w writes
	for i := range 300 {
		w.puts = append(w.puts, put{fmt.Sprintf("/p%03d", i), []byte("v")})
	}
	for i := range 130 {
		w.deletes = append(w.deletes, fmt.Sprintf("/d%03d", i))
	}
	b := w.batches(128)
	if got := strings.Join(shape(b), " "); got != "P128 P128 P44 D128 D2" {
		t.Fatalf("batches %s", got)
	}
	// Large values split by bytes, under etcd's request limit.
	w = writes{}
	for i := range 5 {
		w.puts = append(w.puts, put{fmt.Sprintf("/big%d", i), make([]byte, 400<<10)})
	}
	if got := strings.Join(shape(w.batches(128)), " "); got != "P2 P2 P1" {
		t.Fatalf("byte-limited batches %s", got)
	}
}

func shape(b [][]clientv3.Op) []string {
	var out []string
	for _, ops := range b {
		puts, dels := 0, 0
		for _, op := range ops {
			if op.IsDelete() {
				dels++
			} else {
				puts++
			}
		}
		switch {
		case dels == 0:
			out = append(out, fmt.Sprintf("P%d", puts))
		case puts == 0:
			out = append(out, fmt.Sprintf("D%d", dels))
		default:
			out = append(out, fmt.Sprintf("M%d", len(ops)))
		}
	}
	return out
}

func TestDiff(t *testing.T) {
	desired := map[string][]byte{"/a": []byte("1"), "/b": []byte("2")}
	current := map[string][]byte{"/a": []byte("1"), "/b": []byte("old"), "/c": []byte("3")}
	w := diff(desired, current, false)
	if len(w.puts) != 1 || w.puts[0].key != "/b" || len(w.deletes) != 0 {
		t.Errorf("without delete: %+v", w)
	}
	w = diff(desired, current, true)
	if len(w.puts) != 1 || len(w.deletes) != 1 || w.deletes[0] != "/c" {
		t.Errorf("with delete: %+v", w)
	}
}
