package txt

import (
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// versionedListing ties a cache to the version of the provider's listing it was built from
// (provider.ListingVersioner). While the provider reports that version again and the cache holds no
// change of its own since (ApplyChanges patches it), the provider's Records would build the same
// cache: load keeps it without listing, converting or hashing anything. Over Route 53's 40,000 cached
// record sets that listing and its hash were about a third of an idle zonekeeper's CPU (issue 15).
type versionedListing struct {
	state   *state // nil: no cache is tied to a version
	version uint64
}

// listingVersion asks the provider for the version of what its Records would return.
func (r *Registry) listingVersion() (version uint64, ok bool) {
	return provider.Wrapped{Provider: r.provider}.ListingVersion()
}

// keepsListing reports whether s is still exactly what the provider's listing would build: s was
// built from (or confirmed by) a complete listing of version, the provider reports version now, and
// nothing was applied to s since that listing. Callers hold r.mu.
func (r *Registry) keepsListing(s *state, version uint64, known bool) bool {
	return known && s != nil && r.versioned.state == s && r.versioned.version == version && s.sameListing(s.listing)
}

// listedVersion is the version of the listing Records just returned, when it can be pinned: known
// when ListingVersion, asked after the listing (after), answers the version Records reported with its
// records (listed, provider.ListedVersion), or, for a provider that reports none, the version it
// answered before the listing too (before): versions only move, so nothing changed in between.
//
// The version asked after the listing alone would not do: a change landing between the listing and
// that question would tie the old records to the new version. Without a reported version, a listing
// made while the version was unknown before (Route 53's first: nothing cached yet) pins nothing, and
// the next load lists again.
func listedVersion(listed *provider.ListedVersion, before, after uint64, knownBefore, knownAfter bool) (version uint64, known bool) {
	if !knownAfter {
		return 0, false
	}
	if v, reported := listed.Version(); reported {
		return after, v == after
	}
	return after, knownBefore && before == after
}

// tieVersion ties s to the version of the listing it was just built from or confirmed by
// (listedVersion), when that is known and the listing was complete. Otherwise no cache is tied, and
// the next load lists. Callers hold r.mu.
func (r *Registry) tieVersion(s *state, version uint64, known bool) {
	if known && s.partial == nil {
		r.versioned = versionedListing{state: s, version: version}
		return
	}
	r.versioned = versionedListing{}
}

// tiedBeforeWrite reports whether s is tied to the provider's listing version now, before a write,
// and the provider lists exactly what it writes (provider.ExactWriter). Callers hold opMu.
func (r *Registry) tiedBeforeWrite(s *state) bool {
	if w, ok := r.provider.(provider.ExactWriter); !ok || !w.ListsExactlyWhatItWrote() {
		return false
	}
	version, known := r.listingVersion()
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.keepsListing(s, version, known)
}

// retieAfterWrite keeps s tied to the provider's listing after a write through it, when it was tied
// before: s, patched with the accepted changes, is what the exact writer now lists. A name sent as
// it is not normalised (the sources send normalised names; the provider stores them normalised) makes
// the next load list instead. Callers hold opMu (no other write or listing runs meanwhile).
func (r *Registry) retieAfterWrite(s *state, tiedBefore bool, sent []*sentChange) {
	if !tiedBefore {
		return
	}
	version, known := r.listingVersion()
	r.mu.Lock()
	defer r.mu.Unlock()
	if !known || r.state != s || !acceptedNamesNormalised(sent) {
		r.versioned = versionedListing{}
		return
	}
	s.listedMutations = s.mutations // the listing it stands for now includes the write
	r.versioned = versionedListing{state: s, version: version}
}

// acceptedNamesNormalised reports whether every accepted change names its record as the provider
// stores it (normalised).
func acceptedNamesNormalised(sent []*sentChange) bool {
	for _, c := range sent {
		if n, err := endpoint.NormalizeDNSName(c.ep.DNSName); c.rejected == nil && (err != nil || n != c.ep.DNSName) {
			return false
		}
	}
	return true
}
