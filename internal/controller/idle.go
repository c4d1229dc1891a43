package controller

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"reflect"
	"slices"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/source"
)

// generationReader is implemented by registries that can tell, without listing or copying, which
// version of their cache the next Records would return (txt.Registry.Generation).
type generationReader interface {
	Generation() (serial, mutations uint64, ok bool)
	// Refresh lists the provider if Records would, without folding or copying the records.
	Refresh(ctx context.Context) error
	// SharedRecordsWithGeneration is Records with that generation, the cache's own endpoints
	// without copies: the controller only reads them (a plan copies what it changes).
	SharedRecordsWithGeneration(ctx context.Context) (eps []*endpoint.Endpoint, serial, mutations uint64, err error)
}

// idleMemo remembers what the last complete plan that changed nothing was made of. A reconcile whose
// desired endpoints (as adjusted by the provider) hash the same, against the same version of the
// registry's cache and the same domain filter, would compute the same plan again: nothing to do, the
// same conflicts, mismatches and held changes. It is skipped; an idle resync then costs the sources'
// endpoints and a hash instead of a copy of every cached record and a plan over everything.
type idleMemo struct {
	valid bool
	// hashed: desired is the hash of the desired endpoints the memo's plan was made of. An event's
	// run that keeps the memo (idle_carry.go) drops it: only a listing of the sources with no event
	// since can then stand for the memo's.
	hashed            bool
	desired           uint64
	serial, mutations uint64
	filter            plan.DomainFilter
	current           int
	result            plan.Result
	// What the sources' listing behind the memo said besides the endpoints (those are in desired's
	// hash), and when it was made (idle_source.go): an idle resync without events since reuses them.
	desiredCount int
	problems     []endpoint.Problem
	unreadable   []string
	listing      sourceListing
}

// desiredHash hashes everything of the desired endpoints the plan reads, and what the sources could
// not read (the plan keeps those records).
func desiredHash(seed maphash.Seed, eps []*endpoint.Endpoint, unreadable []string) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	str := func(s string) {
		h.WriteString(s)
		h.WriteByte(0)
	}
	num := func(n int64) {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(n))
		h.Write(b[:])
	}
	num(int64(len(eps)))
	var keys []string
	for _, e := range eps {
		str(e.DNSName)
		str(e.RecordType)
		str(e.SetIdentifier)
		num(int64(e.RecordTTL))
		num(int64(len(e.Targets)))
		for _, t := range e.Targets {
			str(t)
		}
		keys = keys[:0]
		for k := range e.Labels {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		num(int64(len(keys)))
		for _, k := range keys {
			str(k)
			str(e.Labels[k])
		}
		num(int64(len(e.ProviderSpecific)))
		for _, p := range e.ProviderSpecific {
			str(p.Name)
			str(p.Value)
		}
	}
	num(int64(len(unreadable)))
	for _, u := range unreadable {
		str(u)
	}
	return h.Sum64()
}

// idleCheck is the part of a reconcile before the registry is read, once idleRegistryHolds told
// whether the memo still describes everything but the sources (holds). It returns the desired
// endpoints adjusted by the provider and their hash when the memo is worth testing, and whether the
// plan would be the same as the memo's (skip). err is the provider's.
func (c *Controller) idleCheck(ctx context.Context, res source.Result, holds bool) (adjusted []*endpoint.Endpoint, hash uint64, skip bool, err error) {
	if !holds {
		return nil, 0, false, nil
	}
	adjusted = res.Endpoints
	if adj, ok := c.registry.(provider.EndpointAdjuster); ok {
		if adjusted, err = adj.AdjustEndpoints(ctx, adjusted); err != nil {
			return nil, 0, false, fmt.Errorf("adjusting endpoints: %w", err)
		}
	}
	hash = desiredHash(c.hashSeed, adjusted, res.Unreadable)
	return adjusted, hash, c.idle.hashed && hash == c.idle.desired, nil
}

// idleRegistryHolds reports whether the memo still describes everything but the sources: no retry or
// settling delete is due (those make the same inputs plan differently as time passes), the domain
// filter is the memo's, and the registry's cache is the version the memo was planned against.
//
// When the registry's cache is due for a listing (a resync dropped it, or it aged), the listing is
// made here, without copying the records: a registry that finds the provider holding what its cache
// was built from keeps the cache and its generation, and the plan is still skipped.
func (c *Controller) idleRegistryHolds(ctx context.Context, filter plan.DomainFilter) (bool, error) {
	gr, ok := c.registry.(generationReader)
	if !ok || !c.idle.valid || len(c.retries.entries) > 0 || !c.guardRecheck.IsZero() || !reflect.DeepEqual(filter, c.idle.filter) {
		return false, nil
	}
	serial, mutations, ok := gr.Generation()
	if !ok {
		if err := gr.Refresh(ctx); err != nil {
			return false, err
		}
		serial, mutations, ok = gr.Generation()
	}
	return ok && serial == c.idle.serial && mutations == c.idle.mutations, nil
}

// records reads the registry's records and, when it can tell, the generation of the cache they were
// folded from (ok false: unknown, nothing may be remembered).
func (c *Controller) records(ctx context.Context) (eps []*endpoint.Endpoint, serial, mutations uint64, ok bool, err error) {
	gr, ok := c.registry.(generationReader)
	if !ok {
		eps, err = c.registry.Records(ctx)
		return eps, 0, 0, false, err
	}
	eps, serial, mutations, err = gr.SharedRecordsWithGeneration(ctx)
	return eps, serial, mutations, true, err
}

// idleOutcome is what the skipped reconcile would have returned and reported: nothing to change, and
// the memo's conflicts, mismatches and held changes (reported again: only new ones are logged).
func (c *Controller) idleOutcome(res source.Result, report *Report) Outcome {
	m := c.idle
	c.reportUnreadable(nil)
	c.reportConflicts(m.result.Conflicts)
	c.reportOwnerMismatches(m.result.OwnerMismatches)
	c.reportHeld(m.result.HeldByPolicy)
	changes := &plan.Changes{}
	report.Current = m.current
	report.Changes, report.Conflicts, report.OwnerMismatches = changes, m.result.Conflicts, m.result.OwnerMismatches
	report.HeldByPolicy = m.result.HeldByPolicy
	c.log.Info("All records are already up to date", "desired", report.Desired, "current", m.current, "replanned", false)
	return Outcome{Changes: changes, Problems: slices.Clip(res.Problems), Conflicts: m.result.Conflicts,
		OwnerMismatches: m.result.OwnerMismatches, HeldByPolicy: m.result.HeldByPolicy}
}
