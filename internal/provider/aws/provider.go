// Package aws is a provider that writes records to Amazon Route 53 through aws-sdk-go-v2, configured
// like external-dns's aws provider (the same flags, annotations and record layout). See README.md for
// the settings, what is written, the API budget and what differs from external-dns.
package aws

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/route53"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

var (
	_ provider.Provider         = (*Provider)(nil)
	_ provider.EndpointAdjuster = (*Provider)(nil)
	_ provider.ListingVersioner = (*Provider)(nil)
	_ provider.ExactWriter      = (*Provider)(nil)
	_ provider.ListedFormer     = (*Provider)(nil)
)

// Provider reads and writes the record sets of the hosted zones its filters select. It keeps a
// write-through cache of the zone list and the zones' contents: Records lists Route 53 only after
// Invalidate (the controller's resync), and ApplyChanges sends only ChangeResourceRecordSets, patching
// the cache with what Route 53 accepted.
type Provider struct {
	// accounts are the profiles' clients; one for the default chain or a single --aws-profile.
	accounts []account
	cfg      Config
	limiter  *Limiter // the first account's
	log      *slog.Logger
	now      func() time.Time
	// sleep waits between batches; tests replace it.
	sleep func(ctx context.Context, d time.Duration) error

	opMu sync.Mutex // serialises Records and ApplyChanges: one listing or apply at a time

	mu       sync.Mutex // guards the cache below
	zoneList []zone     // nil: not listed
	zonesAt  time.Time
	// accountZones is how many hosted zones each account held at the zone listing, managed or not.
	accountZones map[*route53.Client]int
	contents     map[string]*zoneContents // by zone id; nil: not listed; a zone CheckZones dropped is absent
	listedAt     time.Time                // when contents was listed in full (after Invalidate)
	// unreadable are the zones whose listing failed on their own (access denied), by zone id.
	unreadable map[string]error
	// probeDenied are the zones whose GetHostedZone was refused (warned once).
	probeDenied map[string]bool
	// untagged are the zones filterByTags left out (--aws-zone-tags), by zone id, so that the probe's
	// zone listing does not ask for their tags again at every resync; reset at each zone listing.
	untagged map[string]bool
	gen      uint64 // bumped by Invalidate, so a listing in flight is not stored
	// version names what cachedEndpoints makes of the cache (ListingVersion). Every change to the zone
	// list, contents, a zone's sets or unreadable bumps it (changedLocked).
	version uint64
	// relists is what the last paced relisting read of each zone (relist_pages.go); guarded by opMu.
	relists relistBook
}

// New checks the configuration and builds the client. It makes no request: credentials are resolved
// and Route 53 is reached on the first call.
func New(ctx context.Context, cfg Config) (*Provider, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	profiles := cfg.Profiles
	if len(profiles) == 0 {
		profiles = []string{cfg.Profile}
	}
	var accounts []account
	for i, profile := range profiles {
		// Route 53's budget is per account: each profile paces its own, shared through the pool with
		// every other instance of the process that uses the same profile, role and endpoint.
		c := cfg
		c.Profile = profile
		lim := cfg.Limiter
		switch {
		case lim != nil && i == 0:
		case cfg.Pool != nil:
			lim = cfg.Pool.Bucket(c.accountKey(), cfg.RequestsPerSecond)
		default:
			lim = NewLimiter(cfg.RequestsPerSecond)
		}
		api, err := newClient(ctx, c, lim)
		if err != nil {
			if profile != "" {
				return nil, fmt.Errorf("--aws-profile=%s: %w", profile, err)
			}
			return nil, err
		}
		accounts = append(accounts, account{profile: profile, api: api, limiter: lim})
	}
	return &Provider{accounts: accounts, cfg: cfg, limiter: accounts[0].limiter, log: cfg.Logger, now: time.Now, sleep: sleepCtx}, nil
}

// account is one profile's Route 53 client.
type account struct {
	profile string
	api     *route53.Client
	limiter *Limiter
}

// Capabilities implements provider.Provider. Route 53 applies one ChangeResourceRecordSets atomically
// and the provider keeps every name's changes (and its ownership TXT) in one batch.
func (p *Provider) Capabilities() provider.Capabilities {
	return provider.Capabilities{
		RecordTypes:   recordTypes,
		SetIdentifier: true,
		Wildcards:     true,
		DefaultTTL:    DefaultTTL,
	}
}

// Limiter returns the rate limiter in use (shared when Config.Limiter was set).
func (p *Provider) Limiter() *Limiter { return p.limiter }

// Invalidate drops the cached zone contents, so the next Records lists every zone again. The zone list
// is dropped too unless --aws-zones-cache-duration keeps it longer. The controller's resync reaches
// it through the registry.
func (p *Provider) Invalidate() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.contents, p.unreadable = nil, nil
	p.gen++
	p.changedLocked()
	if p.cfg.ZonesCacheDuration <= 0 || p.now().Sub(p.zonesAt) >= p.cfg.ZonesCacheDuration {
		p.zoneList = nil
	}
}

// Records implements provider.Provider: every record set of the managed zones, from the cache when it
// is valid. When some zones cannot be listed, the others' record sets come with a
// *provider.UnreadableZonesError naming them. A record set present in several zones (a public and a private zone of the same name) is
// listed once. A caller that asks (provider.WithListedVersion) is told the listing version of exactly
// the record sets returned.
//
// An Invalidate during the listing (the webhook server's, from a concurrent request) leaves the
// listing unstored: Records lists again, up to recordsAttempts times, rather than return a cache
// that lacks zones as if they held nothing.
func (p *Provider) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	p.opMu.Lock()
	defer p.opMu.Unlock()
	for attempt := 1; ; attempt++ {
		err := p.load(ctx)
		if _, partial := provider.AsUnreadableZones(err); err != nil && !partial {
			return nil, err
		}
		if eps, complete := p.cachedEndpoints(ctx); complete {
			return eps, err
		}
		if attempt == recordsAttempts {
			return nil, fmt.Errorf("aws: the cache was invalidated during each of %d listings", attempt)
		}
	}
}

// recordsAttempts is how many listings Records makes when each is invalidated meanwhile.
const recordsAttempts = 3

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
