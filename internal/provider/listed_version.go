package provider

import "context"

// ListedVersion is the ListingVersion of exactly the records one Records call returned, which that
// call reports (ReportListedVersion) when its caller asked for it (WithListedVersion).
//
// Why: a cache over the provider (the TXT registry) ties itself to the version of the listing it was
// built from, and keeps itself without listing while the provider reports that version again. Asking
// ListingVersion before and after Records pins the listing's version only when both answers are
// known and equal. Route 53's version is unknown before its first listing (nothing is cached yet), so
// the registry's first cache was never tied: the first resync after the converging writes listed
// again, built a new cache and planned every name once more (issue 15). Taking the version after
// Records alone is not safe: a change that lands between the listing and the question (a write, the
// paced relisting) would tie the old records to the new version, and hide the change until the next
// full relisting. The provider's Records knows which version it read, under its own lock.
//
// The version rides on the Records call's context, not on a second listing method, so that it passes
// through every wrapper's Records as it is (the metrics wrapper counts and times that call; a method
// that Wrapped forwarded would go around it). A caller trusts a reported version only when
// ListingVersion, asked after Records, answers the same: a wrapper whose Records returns anything but
// its provider's already answers unknown there (see Wrapped), so it needs nothing more.
type ListedVersion struct {
	version  uint64
	reported bool
}

// listedVersionKey is the context key of the *ListedVersion a Records call reports into.
type listedVersionKey struct{}

// WithListedVersion returns the context for one Records call and what that call reports into. Use
// the context for that call only.
func WithListedVersion(ctx context.Context) (context.Context, *ListedVersion) {
	l := &ListedVersion{}
	return context.WithValue(ctx, listedVersionKey{}, l), l
}

// ReportListedVersion is called by a ListingVersioner's Records with the version of the records it
// returns, read under the same lock as those records, before it returns. It does nothing when the
// caller did not ask. A Records that cannot tell (ListingVersion would answer unknown) does not call
// it.
func ReportListedVersion(ctx context.Context, version uint64) {
	if l, ok := ctx.Value(listedVersionKey{}).(*ListedVersion); ok {
		l.version, l.reported = version, true
	}
}

// Version is the version Records reported; ok is false when it reported none.
func (l *ListedVersion) Version() (version uint64, ok bool) {
	return l.version, l.reported
}
