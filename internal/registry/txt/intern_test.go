package txt

import (
	"context"
	"testing"
	"time"
	"unsafe"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// TestCacheKeepsOneCopyOfRepeatedStrings: every cached record carries the same label keys and, when
// ours, our owner id; they must point at one copy (the package constants, the registry's owner id),
// not at the text of each record's TXT, and the other values read from a TXT are not stored a second
// time beside its text.
func TestCacheKeepsOneCopyOfRepeatedStrings(t *testing.T) {
	mem, _ := newZone()
	seed(t, mem,
		endpoint.New("nginx.example.com", endpoint.RecordTypeA, "192.0.2.1"),
		txtRecord("a-nginx.example.com", nginxValue),
		endpoint.New("web.example.com", endpoint.RecordTypeA, "192.0.2.2"),
		txtRecord("a-web.example.com", webValue))
	owner := string([]byte("cluster-a")) // its own memory, to tell it from the TXTs'
	r := mustNew(t, mem, Config{OwnerID: owner, CacheInterval: time.Hour})
	eps, _, _, err := r.SharedRecordsWithGeneration(context.Background())
	if err != nil || len(eps) != 2 {
		t.Fatalf("%d records, %v", len(eps), err)
	}
	same := func(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }
	for _, e := range eps {
		for k, v := range e.Labels {
			switch k {
			case endpoint.OwnerLabelKey:
				if !same(k, endpoint.OwnerLabelKey) {
					t.Errorf("%s: the owner label's key is a copy", e.DNSName)
				}
				if !same(v, owner) {
					t.Errorf("%s: the owner id %q is a copy", e.DNSName, v)
				}
			case endpoint.ResourceLabelKey:
				if !same(k, endpoint.ResourceLabelKey) {
					t.Errorf("%s: the resource label's key is a copy", e.DNSName)
				}
			}
		}
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	for en := range r.state.all() {
		if en.own == nil {
			continue
		}
		listed := en.listedCopy() // its strings are the entry's own
		target := listed.Targets[0]
		start, end := uintptr(unsafe.Pointer(unsafe.StringData(target))), uintptr(unsafe.Pointer(unsafe.StringData(target)))+uintptr(len(target))
		if p := uintptr(unsafe.Pointer(unsafe.StringData(en.own.labels[endpoint.ResourceLabelKey]))); p < start || p >= end {
			t.Errorf("%s: the resource label's value is stored apart from the TXT's own text", listed.DNSName)
		}
	}
}
