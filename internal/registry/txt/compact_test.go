package txt

import (
	"math"
	"reflect"
	"testing"
	"time"
	"unsafe"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// TestCompactTXTIsTheListedOne: an ownership TXT's entry that keeps no endpoint (compactListed) must
// give back exactly the record set it was listed as, for the provider to delete or update by value;
// one in any other form keeps its endpoint. Each listed TXT is put into a cache and the entry's
// listedCopy compared with a DeepCopy of it.
func TestCompactTXTIsTheListedOne(t *testing.T) {
	txt := func(name string, ttl endpoint.TTL, change func(*endpoint.Endpoint)) *endpoint.Endpoint {
		e := endpoint.NewWithTTL(name, endpoint.RecordTypeTXT, ttl, nginxValue)
		if change != nil {
			change(e)
		}
		return e
	}
	cases := []struct {
		listed  *endpoint.Endpoint
		compact bool
	}{
		{txt("a-nginx.example.com", 300, nil), true}, // an empty label map
		{txt("a-nil.example.com", 0, func(e *endpoint.Endpoint) { e.Labels = nil }), true},
		{txt("A-Upper.Example.com.", math.MaxUint32, nil), true},
		{txt("a-big.example.com", math.MaxUint32+1, nil), false},
		{txt("a-negative.example.com", -1, nil), false},
		{txt("a-set.example.com", 300, func(e *endpoint.Endpoint) { e.SetIdentifier = "eu" }), false},
		{txt("a-props.example.com", 300, func(e *endpoint.Endpoint) {
			e.SetProviderSpecific("aws/weight", "10")
		}), false},
		{txt("a-noprops.example.com", 300, func(e *endpoint.Endpoint) { e.ProviderSpecific = endpoint.ProviderSpecific{} }), false},
		{txt("a-labelled.example.com", 300, func(e *endpoint.Endpoint) {
			e.Labels[endpoint.OwnedRecordLabelKey] = "labelled.example.com"
		}), false},
		{txt("a-two.example.com", 300, func(e *endpoint.Endpoint) { e.Targets = append(e.Targets, `"v=spf1 -all"`) }), false},
	}
	s := newState(nil, newCodec(nil, false), time.Now())
	want := make([]*endpoint.Endpoint, len(cases))
	for i, c := range cases {
		want[i] = c.listed.DeepCopy()
		s.put(c.listed, newCodec(nil, false))
	}
	for i, c := range cases {
		en := s.entry(keyOf(c.listed))
		if en == nil || en.own == nil {
			t.Fatalf("%s: not cached as an ownership TXT", c.listed)
		}
		if compact := en.ep == nil; compact != c.compact {
			t.Errorf("%s: kept without its endpoint %v, want %v", c.listed, compact, c.compact)
		}
		if got := en.listedCopy(); !reflect.DeepEqual(got, want[i]) {
			t.Errorf("listed as %#v, the cache gives back %#v", want[i], got)
		}
	}
	if size := unsafe.Sizeof(ownership{}); size > 48 {
		t.Errorf("an ownership is %d bytes, want at most 48 (one per owned name)", size)
	}
}
