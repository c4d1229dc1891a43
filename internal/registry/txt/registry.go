package txt

import (
	"context"
	"fmt"
	"hash/maphash"
	"sync"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/registry"
)

var _ registry.Registry = (*Registry)(nil)

// Registry is the TXT registry. It is safe for concurrent use; calls that reach the provider (a
// listing, ApplyChanges) run one at a time so a listing can never overwrite a cache that a concurrent
// apply has just patched.
type Registry struct {
	provider provider.Provider
	ownerID  string
	oldOwner string // --migrate-from-txt-owner; "" when not migrating
	mapper   Mapper
	codec    codec
	managed  map[string]bool
	interval time.Duration
	now      func() time.Time

	opMu  sync.Mutex   // serialises provider calls
	mu    sync.RWMutex // guards state
	state *state       // nil: nothing cached
	// listings counts the listings installed as the cache; each state carries its number.
	listings uint64
	// previous is the cache that was dropped, kept until the next listing: if the provider still
	// holds exactly what it was built from, it is installed again (see load).
	previous *state
	// versioned ties the cache (or previous) to the provider's listing version, for providers that
	// report one (provider.ListingVersioner); see load.
	versioned versionedListing
	seed      maphash.Seed
}

// New returns a TXT registry over p.
func New(p provider.Provider, cfg Config) (*Registry, error) {
	if p == nil {
		return nil, fmt.Errorf("txt registry: no provider")
	}
	key, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	m, err := NewMapper(cfg.Prefix, cfg.Suffix, cfg.WildcardReplacement)
	if err != nil {
		return nil, fmt.Errorf("txt registry: %w", err)
	}
	types := cfg.ManagedRecordTypes
	if len(types) == 0 {
		types = defaultManagedRecordTypes
	}
	managed := make(map[string]bool, len(types))
	for _, t := range types {
		managed[t] = true
	}
	return &Registry{
		provider: p,
		ownerID:  cfg.OwnerID,
		oldOwner: cfg.OldOwnerID,
		mapper:   m,
		codec:    newCodec(key, cfg.EncryptEnabled),
		managed:  managed,
		interval: cfg.CacheInterval,
		now:      time.Now,
		seed:     maphash.MakeSeed(),
	}, nil
}

// OwnerID implements registry.Registry.
func (r *Registry) OwnerID() string { return r.ownerID }

// Mapper returns the TXT name mapper in use.
func (r *Registry) Mapper() Mapper { return r.mapper }

// Records implements registry.Registry: the provider's records with ownership folded into their labels
// and the ownership TXTs left out. It lists the provider unless the cache is younger than
// Config.CacheInterval. The endpoints are fresh copies the caller may change.
//
// When the provider could list some zones only (*provider.UnreadableZonesError), the records of the
// others are cached and returned together with that error, until the next listing.
func (r *Registry) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	eps, _, _, err := r.RecordsWithGeneration(ctx)
	return eps, err
}

// RecordsWithGeneration is Records together with the generation (see Generation) of the cache the
// records were folded from, read under the same lock.
func (r *Registry) RecordsWithGeneration(ctx context.Context) (eps []*endpoint.Endpoint, serial, mutations uint64, err error) {
	return r.recordsFoldedBy(ctx, r.fold)
}

// SharedRecordsWithGeneration is RecordsWithGeneration without the copies: the endpoints are the
// cache's own and are shared with every later caller, so the caller must not modify them. The
// registry never modifies them either: a change to the cache folds a new endpoint for the names it
// touched and leaves the one handed out as it was, so a plan made from them stays consistent. They
// may be handed back in a plan's UpdateOld and Delete: ApplyChanges copies what it sends.
//
// A full plan at 10^5 records reads every record once; copying them all first cost more than the plan
// (issue 15). RecordsWithGeneration keeps its copies for callers that change what they get.
func (r *Registry) SharedRecordsWithGeneration(ctx context.Context) (eps []*endpoint.Endpoint, serial, mutations uint64, err error) {
	return r.recordsFoldedBy(ctx, r.foldShared)
}

// recordsFoldedBy is the cache folded by fold (copies or shared endpoints) with its generation, read
// under the same lock; the provider is listed when the cache is older than the cache interval.
func (r *Registry) recordsFoldedBy(ctx context.Context, fold func(*state) []*endpoint.Endpoint) (eps []*endpoint.Endpoint, serial, mutations uint64, err error) {
	if eps, s, partial, ok := r.foldFreshWith(fold); ok {
		return eps, s.serial, s.mutations, partial
	}
	r.opMu.Lock()
	defer r.opMu.Unlock()
	// Another caller may have listed while we waited.
	if eps, s, partial, ok := r.foldFreshWith(fold); ok {
		return eps, s.serial, s.mutations, partial
	}
	s, err := r.load(ctx)
	if err != nil {
		return nil, 0, 0, err
	}
	r.mu.Lock() // fold updates the memo
	defer r.mu.Unlock()
	return fold(s), s.serial, s.mutations, s.partial
}

// CheckZones asks the provider to probe its zones (provider.ZoneProber) and drops the cache when any
// zone was dropped from the provider's, so the next Records folds the provider's records again: that
// lists only the dropped zones. Without a probe it answers provider.ErrNoZoneProbe.
func (r *Registry) CheckZones(ctx context.Context, relist time.Duration) ([]string, error) {
	r.opMu.Lock()
	defer r.opMu.Unlock()
	stale, err := provider.Wrapped{Provider: r.provider}.CheckZones(ctx, relist)
	if len(stale) > 0 {
		r.mu.Lock()
		r.dropState()
		r.mu.Unlock()
	}
	return stale, err
}

// CachedRecords returns what Records would return from the cache, without ever calling the provider,
// whatever the cache's age. ok is false when nothing is cached (never listed, or invalidated).
func (r *Registry) CachedRecords() (eps []*endpoint.Endpoint, ok bool) {
	r.mu.Lock() // fold updates the memo
	defer r.mu.Unlock()
	if r.state == nil {
		return nil, false
	}
	return r.fold(r.state), true
}

// Invalidate drops the cache, so the next Records or ApplyChanges lists the provider again; a provider
// with a cache of its own (Route 53's zone contents) drops it too.
func (r *Registry) Invalidate() {
	r.mu.Lock()
	r.dropState()
	r.mu.Unlock()
	provider.Wrapped{Provider: r.provider}.Invalidate()
}

// Probe forwards to the provider's probe, if it has one.
func (r *Registry) Probe(ctx context.Context) error {
	return provider.Wrapped{Provider: r.provider}.Probe(ctx)
}

// DomainFilter forwards to the provider's negotiated filter, if it has one.
func (r *Registry) DomainFilter(ctx context.Context) (plan.DomainFilter, error) {
	return provider.Wrapped{Provider: r.provider}.DomainFilter(ctx)
}

// AdjustEndpoints lets the provider put desired endpoints into the form its Records returns (Route 53
// turns a CNAME to a load balancer into an A ALIAS), so that the plan compares like with like.
func (r *Registry) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	return provider.Wrapped{Provider: r.provider}.AdjustEndpoints(ctx, eps)
}

// Generation tells, without listing or copying anything, which version of the cache the next Records
// would fold: serial changes with every listing, mutations with every change applied to the cache
// (ApplyChanges). ok is false when Records would list the provider instead (nothing cached, the cache
// is older than Config.CacheInterval and not tied to the listing version the provider reports now,
// or the last listing left zones out): then nothing is known. The controller compares generations to
// skip replanning what cannot have changed.
//
// A cache older than the interval that is tied to the version the provider still reports is what
// Records would keep without listing (load), as RecordsNamed answers from it: its generation is
// known. Without that, every idle resync over Route 53 found the generation unknown and made Refresh
// take the registry's lock and ask the version again to learn the same thing.
func (r *Registry) Generation() (serial, mutations uint64, ok bool) {
	r.mu.RLock()
	s := r.state
	usable := s != nil && s.partial == nil && r.interval > 0
	young := usable && r.now().Sub(s.loadedAt) < r.interval
	tied := usable && r.versioned.state == s
	if young {
		serial, mutations = s.serial, s.mutations
	}
	r.mu.RUnlock()
	if young || !tied {
		return serial, mutations, young
	}
	version, known := r.listingVersion() // outside r.mu, as load asks it: the provider locks its own cache
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.state != s || !r.keepsListing(s, version, known) {
		return 0, 0, false
	}
	return s.serial, s.mutations, true
}

// Refresh lists the provider if Records would, without folding or copying anything; afterwards
// Generation is known unless the listing left zones out. Without a cache interval it does nothing:
// the generation cannot be known, and the Records that follows lists anyway.
func (r *Registry) Refresh(ctx context.Context) error {
	if r.interval <= 0 {
		return nil
	}
	if _, _, ok := r.Generation(); ok {
		return nil
	}
	r.opMu.Lock()
	defer r.opMu.Unlock()
	r.mu.RLock()
	fresh := r.state != nil && r.interval > 0 && r.now().Sub(r.state.loadedAt) < r.interval
	r.mu.RUnlock()
	if fresh {
		return nil
	}
	_, err := r.load(ctx)
	return err
}

// dropState drops the cache, keeping it aside for load. Callers hold r.mu.
func (r *Registry) dropState() {
	if r.state != nil {
		r.previous = r.state
	}
	r.state = nil
}

// foldFreshWith folds the cache with fold if it is younger than the cache interval.
func (r *Registry) foldFreshWith(fold func(*state) []*endpoint.Endpoint) ([]*endpoint.Endpoint, *state, error, bool) {
	r.mu.Lock() // fold updates the memo
	defer r.mu.Unlock()
	if r.state == nil || r.interval <= 0 || r.now().Sub(r.state.loadedAt) >= r.interval {
		return nil, nil, nil, false
	}
	return fold(r.state), r.state, r.state.partial, true
}

// load lists the provider and installs the listing as the cache, a partial one too (its state keeps
// the *provider.UnreadableZonesError). Callers hold opMu.
//
// The provider holds what the cache was built from when its listing version says so (versionedListing)
// or, without one, when its listing hashes the same: the cache is then kept, with its fold memo and its
// generation, so that nothing downstream is rebuilt or replanned.
func (r *Registry) load(ctx context.Context) (*state, error) {
	before, knownBefore := r.listingVersion()
	r.mu.Lock()
	old := r.state
	if old == nil {
		old = r.previous
	}
	if r.keepsListing(old, before, knownBefore) {
		r.keep(old)
		r.mu.Unlock()
		return old, nil
	}
	r.mu.Unlock()
	listCtx, listed := provider.WithListedVersion(ctx)
	records, err := r.provider.Records(listCtx)
	partial, isPartial := provider.AsUnreadableZones(err)
	if err != nil && !isPartial {
		return nil, err
	}
	sum := listingHash(r.seed, records)
	after, knownAfter := r.listingVersion()
	version, pinned := listedVersion(listed, before, after, knownBefore, knownAfter)
	r.mu.Lock()
	old = r.state
	if old == nil {
		old = r.previous
	}
	if !isPartial && old.sameListing(sum) {
		r.keep(old)
		r.tieVersion(old, version, pinned)
		r.mu.Unlock()
		return old, nil
	}
	r.previous = nil
	r.mu.Unlock()
	s := newState(records, r.codec, r.now())
	s.listing, s.listedMutations = sum, s.mutations
	if isPartial {
		s.partial = partial
	}
	r.mu.Lock()
	r.listings++
	s.serial = r.listings
	r.state = s
	r.tieVersion(s, version, pinned)
	r.mu.Unlock()
	return s, nil
}

// keep installs old, which the provider still holds, as the fresh cache. Callers hold r.mu.
func (r *Registry) keep(old *state) {
	old.loadedAt = r.now()
	r.state = old
	r.previous = nil
}

// current returns the cache, listing the provider if there is none. Callers hold opMu.
func (r *Registry) current(ctx context.Context) (*state, error) {
	r.mu.RLock()
	s := r.state
	r.mu.RUnlock()
	if s != nil {
		return s, nil
	}
	return r.load(ctx)
}

// EstimateCalls says what ApplyChanges would cost in provider calls, ownership records included
// (provider.CallEstimator); provider.ErrNoEstimate when the provider cannot tell.
func (r *Registry) EstimateCalls(ctx context.Context, changes *plan.Changes) (provider.CallEstimate, error) {
	w := provider.Wrapped{Provider: r.provider}
	if _, ok := r.provider.(provider.CallEstimator); !ok || !changes.HasChanges() {
		return w.EstimateCalls(ctx, &plan.Changes{})
	}
	r.opMu.Lock()
	defer r.opMu.Unlock()
	s, err := r.current(ctx)
	if err != nil {
		return provider.CallEstimate{}, err
	}
	b := &batch{r: r, s: s, txtSeen: map[endpoint.Key]bool{}}
	r.mu.RLock()
	err = b.build(changes)
	r.mu.RUnlock()
	if err != nil {
		return provider.CallEstimate{}, err
	}
	return w.EstimateCalls(ctx, b.changes())
}

// RecordsNamed is what Records would return for the records named (as plan.NameKey puts names), from
// the cache and without sorting or copying anything else: what an event's reconcile needs of the
// zone. ok is false when Records would list the provider instead (see Generation), or when the cache
// holds a name that is not ASCII (the plan compares those in punycode, a lookup by name could miss
// one); the caller then plans everything.
//
// A cache older than the interval that is tied to the provider's listing version, which the provider
// still reports, is what Records would keep without listing (load): it answers, and is young again.
// Without that, the cache aged a moment after any resync that found it still young (the resync ticks
// once per interval; only a resync that finds it aged refreshes it), and every event until the next
// resync planned everything (Route 53, whose cache is versioned: issue 15).
func (r *Registry) RecordsNamed(names []string) (eps []*endpoint.Endpoint, serial, mutations uint64, ok bool) {
	version, known := r.listingVersion() // outside r.mu, as load asks it: the provider locks its own cache
	r.mu.Lock()                          // refold updates the memo
	defer r.mu.Unlock()
	s := r.state
	if s == nil || s.partial != nil || r.interval <= 0 || s.nonASCII > 0 {
		return nil, 0, 0, false
	}
	if r.now().Sub(s.loadedAt) >= r.interval {
		if !r.keepsListing(s, version, known) {
			return nil, 0, 0, false
		}
		r.keep(s)
	}
	r.refold(s)
	for _, name := range names {
		for en := s.entries.get(name); en != nil; en = en.next {
			if en.folded != nil { // a record (an ownership TXT has none)
				eps = append(eps, en.folded.DeepCopy())
			}
		}
	}
	return eps, s.serial, s.mutations, true
}
