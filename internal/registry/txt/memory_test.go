package txt

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// TestBytesPerCachedRecord measures the live heap the registry's cache holds per record set we own:
// the listing's record and its ownership TXT as entries by name (with the parsed ownership), and the
// fold memo (the labelled record, its place in Records order). The provider's own copy is not
// counted. The figure is logged (go test -v); the test fails if it grows past 700 bytes (it was 3,157
// with a map per name in the index, 2,020 with a copy of the ownership's label map per record and a
// map of positions, 1,474 while the entry kept the listed record beside the memo's, 1,298 while the
// index by name held the ownership TXTs' names, 1,171 while the memo was a map of its own beside the
// entries, 1,082 while the entries were a map by key beside an index by name, 849 while each listed
// ownership TXT kept an empty label map of its own, 801 while the parsed ownership kept its plain text
// and nonce beside its labels, 769 while the ownership TXT's entry kept the listed endpoint, 673 while
// the index by name was a map[string]*entry; 615 since).
func TestBytesPerCachedRecord(t *testing.T) {
	if testing.Short() {
		t.Skip("fills a cache with 20,000 records")
	}
	const n = 10000
	mem, _ := newZone()
	eps := make([]*endpoint.Endpoint, 0, 2*n)
	for i := range n {
		name := fmt.Sprintf("host-%d.example.com", i)
		eps = append(eps,
			endpoint.NewWithTTL(name, "A", 300, fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)),
			txtRecord("a-"+name, fmt.Sprintf(`"heritage=external-dns,external-dns/owner=cluster-a,external-dns/resource=ingress/team-%d/app-%d"`, i%40, i)))
	}
	seed(t, mem, eps...)
	eps = nil
	perRecord := cachedBytesPer(t, mem, n)
	t.Logf("%d record sets with their ownership TXTs: %.0f bytes per record set cached (%.0f per cached entry)", n, perRecord, perRecord/2)
	if perRecord > 700 {
		t.Errorf("%.0f bytes per cached record set, want at most 700", perRecord)
	}
}

// TestBytesPerUnownedRecord is TestBytesPerCachedRecord for records nobody owns (no ownership TXT), as
// a zone shared with other tools holds them: the entry, which keeps the memo's record, and that
// record's place in Records order. It fails above 265 bytes (it was 437 while the entry kept the
// listed record beside the memo's, with a label map of its own, 261 while the index by name was a
// map[string]*entry; 232 since).
func TestBytesPerUnownedRecord(t *testing.T) {
	if testing.Short() {
		t.Skip("fills a cache with 10,000 records")
	}
	const n = 10000
	mem, _ := newZone()
	eps := make([]*endpoint.Endpoint, 0, n)
	for i := range n {
		eps = append(eps, endpoint.NewWithTTL(fmt.Sprintf("host-%d.example.com", i), "A", 300,
			fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)))
	}
	seed(t, mem, eps...)
	eps = nil
	perRecord := cachedBytesPer(t, mem, n)
	t.Logf("%d records nobody owns: %.0f bytes per record cached", n, perRecord)
	if perRecord > 265 {
		t.Errorf("%.0f bytes per cached record nobody owns, want at most 265", perRecord)
	}
}

// TestBytesPerDualStackName is TestBytesPerCachedRecord for names with an A and an AAAA record, whose
// ownership TXTs say the same (one Ingress): per name, both records and both TXTs. The two TXTs share
// one label map (state.sharedLabels); it fails above 1,000 bytes per name (it was 1,539 before
// 38276fd, 1,231 while each TXT had a map of its own; 895 since).
func TestBytesPerDualStackName(t *testing.T) {
	if testing.Short() {
		t.Skip("fills a cache with 40,000 records")
	}
	const n = 10000
	mem, _ := newZone()
	eps := make([]*endpoint.Endpoint, 0, 4*n)
	for i := range n {
		name := fmt.Sprintf("host-%d.example.com", i)
		value := fmt.Sprintf(`"heritage=external-dns,external-dns/owner=cluster-a,external-dns/resource=ingress/team-%d/app-%d"`, i%40, i)
		eps = append(eps,
			endpoint.NewWithTTL(name, "A", 300, fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)),
			endpoint.NewWithTTL(name, "AAAA", 300, fmt.Sprintf("2001:db8::%x", i)),
			txtRecord("a-"+name, value), txtRecord("aaaa-"+name, value))
	}
	seed(t, mem, eps...)
	eps = nil
	perName := cachedBytesPer(t, mem, 2*n) * 2
	t.Logf("%d names with an A, an AAAA and their ownership TXTs: %.0f bytes per name cached", n, perName)
	if perName > 1000 {
		t.Errorf("%.0f bytes per cached dual-stack name, want at most 1,000", perName)
	}
}

// cachedBytesPer is what a registry's cache over p adds to the live heap, per one of the n records
// its Records returns.
func cachedBytesPer(t *testing.T, p provider.Provider, n int) float64 {
	t.Helper()
	r := mustNew(t, p, Config{OwnerID: "cluster-a", CacheInterval: time.Hour})
	before := testbed.LiveHeap()
	got, err := r.Records(context.Background())
	if err != nil || len(got) != n {
		t.Fatalf("Records: %d records, %v", len(got), err)
	}
	got = nil
	after := testbed.LiveHeap()
	runtime.KeepAlive(r)
	return float64(int64(after)-int64(before)) / float64(n)
}
