package azure

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// recordSet is a record set of either API in the provider's terms: a relative name ("@" is the
// apex), a type, a TTL and targets as endpoints carry them (MX "PREFERENCE EXCHANGE").
type recordSet struct {
	name    string
	typ     string
	ttl     int64
	targets []string
	auto    bool // registered by a virtual network link (private zones): never to be changed
}

// zoneRef is one zone of the resource group: its name, its ARM resource id, which --zone-id-filter
// matches, and its numberOfRecordSets ("the current number of record sets in this zone", every type
// and auto-registered sets included), the zone probe.
type zoneRef struct {
	name, id string
	count    int64
}

// backend is what the provider needs from Azure DNS or Azure Private DNS: the zones of the resource
// group, their record sets, and one-set writes (the API has no batch).
type backend interface {
	zones(ctx context.Context) ([]zoneRef, error)
	// recordSets lists the zone's record sets of the handled types, and how many sets of any type
	// the listing held (what numberOfRecordSets counts).
	recordSets(ctx context.Context, zone string) (sets []recordSet, total int64, err error)
	put(ctx context.Context, zone string, rs recordSet) error
	remove(ctx context.Context, zone, name, typ string) error
	// types are the record types the provider reads and writes.
	types() []string
}

// parseMX splits an MX target "PREFERENCE EXCHANGE".
func parseMX(target string) (int32, string, error) {
	f := strings.Fields(target)
	if len(f) != 2 {
		return 0, "", fmt.Errorf("MX target %q: want \"PREFERENCE EXCHANGE\"", target)
	}
	p, err := strconv.ParseUint(f[0], 10, 16)
	if err != nil {
		return 0, "", fmt.Errorf("MX target %q: preference must be 0..65535", target)
	}
	return int32(p), f[1], nil
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func ptr[T any](v T) *T { return &v }
