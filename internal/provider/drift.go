package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/plan"
)

// ZoneProber is implemented by providers that cache each zone's records and can tell cheaply whether a
// zone changed behind their back (Route 53: GetHostedZone's ResourceRecordSetCount, one call per
// zone). The controller calls CheckZones at every --interval instead of dropping the whole cache:
// only a zone whose probe changed, or whose listing is older than relist, is listed again.
type ZoneProber interface {
	// CheckZones probes every cached zone and drops from the cache each one whose probe changed, for
	// the next Records to list; when the listing is at least relist old (relist 0: the provider's
	// default, derived from its API budget) it may instead list the zones itself and replace only
	// those whose contents differ (Route 53 does, so that a relisting that finds what was cached
	// leaves the listing version alone). It returns the names of the zones dropped or replaced. An
	// error means the probes or the relisting could not be made; the cache is then as it was.
	CheckZones(ctx context.Context, relist time.Duration) (stale []string, err error)
}

// ErrNoZoneProbe is what Wrapped.CheckZones answers for a provider without a ZoneProber: the caller
// relists the whole provider instead.
var ErrNoZoneProbe = errors.New("the provider cannot probe its zones")

// CallEstimator is implemented by providers that can say, before applying changes, how many API calls
// they will cost (zonekeeper plan prints it). It makes no call to the API.
type CallEstimator interface {
	EstimateCalls(ctx context.Context, changes *plan.Changes) (CallEstimate, error)
}

// CallEstimate is the cost of applying a plan.
type CallEstimate struct {
	// Calls is the number of write calls; Call names them ("ChangeResourceRecordSets").
	Calls int
	Call  string
	// Zones is how many zones the calls touch.
	Zones int
}

// UnreadableZone is a zone whose listing failed while the others were listed.
type UnreadableZone struct {
	Name, ID string
	Err      error
}

// UnreadableZonesError is returned by Records, together with the records of the zones that could be
// listed, when some zones could not be (access denied to one zone, a zone deleted meanwhile). The
// caller plans the other zones and leaves every name of an unreadable zone alone: neither created nor
// deleted, since what it holds is unknown.
type UnreadableZonesError struct {
	Zones []UnreadableZone
	// Readable are the names of the zones that were listed.
	Readable []string
}

func (e *UnreadableZonesError) Error() string {
	parts := make([]string, len(e.Zones))
	for i, z := range e.Zones {
		parts[i] = fmt.Sprintf("zone %s (%s): %v", z.Name, z.ID, z.Err)
	}
	return fmt.Sprintf("%d zone(s) could not be listed and are left out of planning: %s", len(e.Zones), strings.Join(parts, "; "))
}

// Names returns the unreadable zones' names.
func (e *UnreadableZonesError) Names() []string {
	out := make([]string, len(e.Zones))
	for i, z := range e.Zones {
		out[i] = z.Name
	}
	return out
}

// Covers reports whether name belongs to an unreadable zone: it lies at or below an unreadable zone
// and no readable zone below that one holds it. A name that two zones of one name hold (Route 53's
// public and private zone) is covered when either is unreadable.
func (e *UnreadableZonesError) Covers(name string) bool {
	name = strings.ToLower(strings.TrimSuffix(name, "."))
	deepest := -1
	for _, z := range e.Zones {
		if in(name, z.Name) {
			deepest = max(deepest, labels(z.Name))
		}
	}
	if deepest < 0 {
		return false
	}
	for _, r := range e.Readable {
		if in(name, r) && labels(r) > deepest {
			return false
		}
	}
	return true
}

// AsUnreadableZones returns the *UnreadableZonesError inside err, if any.
func AsUnreadableZones(err error) (*UnreadableZonesError, bool) {
	var ue *UnreadableZonesError
	ok := errors.As(err, &ue)
	return ue, ok
}

func in(name, zone string) bool {
	zone = strings.ToLower(strings.TrimSuffix(zone, "."))
	return name == zone || strings.HasSuffix(name, "."+zone)
}

func labels(zone string) int { return strings.Count(strings.TrimSuffix(zone, "."), ".") + 1 }

// CheckZones forwards to the provider's probe, or answers ErrNoZoneProbe.
func (w Wrapped) CheckZones(ctx context.Context, relist time.Duration) ([]string, error) {
	if p, ok := w.Provider.(ZoneProber); ok {
		return p.CheckZones(ctx, relist)
	}
	return nil, ErrNoZoneProbe
}

// EstimateCalls forwards to the provider's estimate, or answers ErrNoEstimate.
func (w Wrapped) EstimateCalls(ctx context.Context, changes *plan.Changes) (CallEstimate, error) {
	if p, ok := w.Provider.(CallEstimator); ok {
		return p.EstimateCalls(ctx, changes)
	}
	return CallEstimate{}, ErrNoEstimate
}

// ErrNoEstimate is what Wrapped.EstimateCalls answers for a provider without a CallEstimator.
var ErrNoEstimate = errors.New("the provider cannot estimate its calls")
