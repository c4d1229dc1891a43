// Package provider defines what a DNS backend offers the pipeline. Each backend lives in its own
// sub-directory with a README and a declared set of capabilities, and passes the conformance suite in
// provider/conformance.
package provider

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

// Provider applies changes to one DNS backend.
type Provider interface {
	// Records lists every record set in the zones the provider manages.
	Records(ctx context.Context) ([]*endpoint.Endpoint, error)
	// ApplyChanges applies the changes. A change the backend rejects must not stop the others: the
	// provider applies what it can and returns an *ApplyError listing the rejected changes. Any other
	// error means nothing is known to have been applied.
	ApplyChanges(ctx context.Context, changes *plan.Changes) error
	// Capabilities says what the backend supports.
	Capabilities() Capabilities
}

// EndpointAdjuster is implemented by providers that store some desired endpoints in another form than
// the sources produce (Route 53 stores a CNAME to a load balancer as an A ALIAS). AdjustEndpoints
// returns the desired endpoints as Records will list them once written, so that planning does not
// churn; it must not modify its argument. It fails only when the provider is remote (a webhook) and
// cannot be asked; the run then fails as when Records fails.
type EndpointAdjuster interface {
	AdjustEndpoints(ctx context.Context, desired []*endpoint.Endpoint) ([]*endpoint.Endpoint, error)
}

// Prober is implemented by providers that can tell cheaply (one call) whether their API answers. After
// a failed run the controller probes before it lists anything again, so an outage costs one call per
// backoff step instead of a full listing.
type Prober interface {
	Probe(ctx context.Context) error
}

// ListingVersioner is implemented by providers that answer Records from a cache of their own and
// know every change to it (Route 53: its own writes, its zone probe, its relisting). ListingVersion
// names what Records would return now: two equal versions mean the same listing. ok is false when the
// provider cannot tell, above all when Records would call the backend instead of its cache; then the
// version means nothing. Unknown is always safe. Its Records also reports the version of exactly what
// it returns (ReportListedVersion), so that a listing made while the version was unknown before it
// (the first) is pinned too.
//
// A cache over the provider (the TXT registry) compares versions instead of converting and hashing a
// listing that cannot have changed: at 40,000 Route 53 record sets that was about a third of an idle
// zonekeeper's CPU (issue 15).
type ListingVersioner interface {
	ListingVersion() (version uint64, ok bool)
}

// ExactWriter is implemented by a ListingVersioner whose listing is exactly what was written through
// its ApplyChanges: nothing else changes what Records returns, and Records returns the accepted record
// sets as they were sent (the built-in DNS server's provider) or as its ListedForm gives them (Route
// 53). A cache patched with the accepted changes of its own ApplyChanges, in that form, is then that
// listing, and stays tied to the provider's new version without listing again: after a write, the
// next resync does not list a million records to confirm it (issue 15).
type ExactWriter interface {
	ListingVersioner
	ListsExactlyWhatItWrote() bool
}

// ListedFormer is implemented by an ExactWriter that stores what is written through it in a form of
// its own (Route 53 fills in the default TTL of a record written without one and keeps no alias
// property on a TXT). ListedForm returns the record sets at keys as Records would list them now, nil
// for a key it does not hold; ok is false when the provider lists what was sent (Wrapped answers so
// for a provider that does not implement it).
type ListedFormer interface {
	ListedForm(keys []endpoint.Key) (eps []*endpoint.Endpoint, ok bool)
}

// DomainFilterer is implemented by providers that limit the names that may be planned beyond the
// --domain-filter flags: a webhook provider negotiates its filter with the server. The controller plans
// only names that both select, as external-dns does. It fails while the filter cannot be had yet; the
// run then fails and is retried.
type DomainFilterer interface {
	DomainFilter(ctx context.Context) (plan.DomainFilter, error)
}

// Capabilities are the features a backend declares, in the style of DNSControl.
type Capabilities struct {
	// RecordTypes the backend can store.
	RecordTypes []string
	// SetIdentifier: several record sets of one name and type, told apart by a set identifier.
	SetIdentifier bool
	// Wildcards: a stored "*" label answers for any name below it.
	Wildcards bool
	// DefaultTTL used when an endpoint leaves its TTL unset.
	DefaultTTL endpoint.TTL
	// Properties are provider-specific properties the backend holds on some record types only (or on
	// none yet): a record that asks for one elsewhere cannot be held as asked.
	Properties []PropertyLimit
}

// PropertyLimit is a provider-specific property the backend can hold on RecordTypes only (Cloudflare
// proxies A, AAAA and CNAME records); with no RecordTypes, on no record.
type PropertyLimit struct {
	// Name is the property ("cloudflare/proxied").
	Name string
	// Off are values that ask for nothing ("false"); an empty value always does.
	Off []string
	// RecordTypes may carry the property.
	RecordTypes []string
	// Reason says why, for the problem on the object.
	Reason string
}

// Refuses says why a backend with these capabilities cannot hold e: a record type it does not store,
// a set identifier, a wildcard name. It returns "" when it can. The controller asks before anything
// is sent, so such a record is a problem on its object rather than a change the backend refuses.
func (c Capabilities) Refuses(e *endpoint.Endpoint) string {
	switch {
	case !c.Supports(e.RecordType):
		return fmt.Sprintf("record type %s is not supported (supported: %s)", e.RecordType, strings.Join(c.RecordTypes, ", "))
	case e.SetIdentifier != "" && !c.SetIdentifier:
		return fmt.Sprintf("set identifiers are not supported (set identifier %q)", e.SetIdentifier)
	case !c.Wildcards && slices.Contains(strings.Split(e.DNSName, "."), "*"):
		return "wildcard names are not supported"
	}
	for _, l := range c.Properties {
		v, ok := e.GetProviderSpecific(l.Name)
		if !ok || strings.TrimSpace(v) == "" || slices.Contains(l.Off, strings.TrimSpace(v)) || slices.Contains(l.RecordTypes, e.RecordType) {
			continue
		}
		return fmt.Sprintf("%s=%s: %s", l.Name, v, l.Reason)
	}
	return ""
}

// Supports reports whether a record type is in the declared list.
func (c Capabilities) Supports(recordType string) bool {
	for _, t := range c.RecordTypes {
		if t == recordType {
			return true
		}
	}
	return false
}

// Action is the kind of a change.
type Action string

const (
	ActionCreate Action = "CREATE"
	ActionUpdate Action = "UPDATE"
	ActionDelete Action = "DELETE"
)

// RejectedChange is one change the backend refused, with the backend's reason.
type RejectedChange struct {
	Action   Action
	Endpoint *endpoint.Endpoint
	Err      error
}

// ApplyError reports the changes a backend rejected while the rest were applied.
type ApplyError struct {
	Rejected []RejectedChange
}

func (e *ApplyError) Error() string {
	parts := make([]string, 0, len(e.Rejected))
	for _, r := range e.Rejected {
		parts = append(parts, fmt.Sprintf("%s %s %s: %v", r.Action, r.Endpoint.DNSName, r.Endpoint.RecordType, r.Err))
	}
	return fmt.Sprintf("%d change(s) rejected: %s", len(e.Rejected), strings.Join(parts, "; "))
}

// AsApplyError returns the *ApplyError inside err, if any.
func AsApplyError(err error) (*ApplyError, bool) {
	var ae *ApplyError
	ok := errors.As(err, &ae)
	return ae, ok
}

// Wrapped is the base of a wrapper around a Provider (metrics, dry run): it forwards the optional
// interfaces (EndpointAdjuster, DomainFilterer, ListingVersioner, ListedFormer, and Invalidate of a cache) that
// callers find by type assertion, which embedding the Provider interface alone would hide. A wrapper
// embeds it and overrides what it changes; one whose Records returns anything but the provider's must
// override ListingVersion too (answering unknown also voids the version the provider's Records reports
// through the call's context, ListedVersion: it is trusted only when ListingVersion answers the same).
type Wrapped struct {
	Provider
}

// AdjustEndpoints forwards to the provider, or returns the endpoints unchanged.
func (w Wrapped) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	if adj, ok := w.Provider.(EndpointAdjuster); ok {
		return adj.AdjustEndpoints(ctx, eps)
	}
	return eps, nil
}

// DomainFilter forwards to the provider, or selects every name.
func (w Wrapped) DomainFilter(ctx context.Context) (plan.DomainFilter, error) {
	if f, ok := w.Provider.(DomainFilterer); ok {
		return f.DomainFilter(ctx)
	}
	return plan.DomainFilter{}, nil
}

// Probe forwards to the provider's probe, or answers nil (nothing cheaper than a full run to ask).
func (w Wrapped) Probe(ctx context.Context) error {
	if p, ok := w.Provider.(Prober); ok {
		return p.Probe(ctx)
	}
	return nil
}

// ListedForm forwards to the provider, or answers that it lists what was sent.
func (w Wrapped) ListedForm(keys []endpoint.Key) ([]*endpoint.Endpoint, bool) {
	if f, ok := w.Provider.(ListedFormer); ok {
		return f.ListedForm(keys)
	}
	return nil, false
}

// ListingVersion forwards to the provider, or answers unknown.
func (w Wrapped) ListingVersion() (uint64, bool) {
	if v, ok := w.Provider.(ListingVersioner); ok {
		return v.ListingVersion()
	}
	return 0, false
}

// Invalidate forwards to the provider's cache, if it has one.
func (w Wrapped) Invalidate() {
	if inv, ok := w.Provider.(interface{ Invalidate() }); ok {
		inv.Invalidate()
	}
}
