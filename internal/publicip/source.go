package publicip

import (
	"context"
	"net/netip"
)

// Source is one way of finding the public address.
type Source interface {
	// Name identifies the source in Address.Source, logs and metric labels.
	Name() string
	// Lookup returns the candidate addresses. The Discoverer checks them (private ranges, families)
	// and keeps the first of each family, so a source returns what it found without judging it.
	Lookup(ctx context.Context) ([]netip.Addr, error)
}
