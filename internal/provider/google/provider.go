// Package google is --provider=google: record sets in Google Cloud DNS through the official
// google.golang.org/api/dns/v1 client, configured like external-dns's google provider. Writes are one
// Change per zone and batch (additions and deletions applied atomically); a change Cloud DNS refuses
// because the zone moved (412, 409) is replanned on a fresh listing of that zone, and one it refuses
// for its content is bisected down to the refused record sets, which are reported while the rest is
// applied. See README.md.
package google

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"time"

	"golang.org/x/oauth2"
	dns "google.golang.org/api/dns/v1"
	"google.golang.org/api/option"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// recordTypes are the types the provider reads and writes: external-dns's google set (A, AAAA, CNAME,
// SRV, TXT, NS, MX; without DNAME, which Cloud DNS does not hold).
var recordTypes = []string{
	endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME, endpoint.RecordTypeTXT,
	endpoint.RecordTypeMX, endpoint.RecordTypeNS, endpoint.RecordTypeSRV,
}

// Provider reads and writes the record sets of the managed zones of one Google Cloud project.
type Provider struct {
	svc     *dns.Service
	project string
	budget  *budget
	cfg     Config
	log     *slog.Logger

	mu sync.Mutex
	// zones are the managed zones as last listed, nil until listed; sets holds, per zone name, its
	// record sets as last listed or written (write-through: the registry lists once per --interval).
	zones []zone
	sets  map[string]map[setKey]*dns.ResourceRecordSet
	// latest is, per zone, the id of its latest Change as of its listing or our own last Change ("":
	// unknown, so the next probe lists it); listedAt is when each zone was listed. See CheckZones.
	latest   map[string]string
	listedAt map[string]time.Time
	// zonesListedAt is when the zone list was fetched: it ages like a zone's listing, so that a zone
	// created later is found at the relisting period even when no zone was managed before.
	zonesListedAt time.Time
	now           func() time.Time
	// probeDenied are the zones whose probe was refused (403), warned about once.
	probeDenied map[string]bool
}

// New checks the configuration and returns the provider. It asks the metadata server for the project
// when --google-project is unset, and makes no other request.
func New(ctx context.Context, cfg Config) (*Provider, error) {
	if cfg.Getenv == nil {
		cfg.Getenv = os.Getenv
	}
	if cfg.BatchChangeSize <= 0 {
		cfg.BatchChangeSize = DefaultBatchChangeSize
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Budgets == nil {
		cfg.Budgets = newBudgets(DefaultRequestsPerSecond, nil)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	switch cfg.ZoneVisibility {
	case "", VisibilityPublic, VisibilityPrivate:
	default:
		return nil, fmt.Errorf("--google-zone-visibility=%s: must be public, private or empty", cfg.ZoneVisibility)
	}
	base, err := apiEndpoint(cfg.Getenv)
	if err != nil {
		return nil, err
	}
	proj, err := project(ctx, cfg)
	if err != nil {
		return nil, err
	}
	ts, err := tokenSource(ctx, cfg)
	if err != nil {
		return nil, err
	}
	b := cfg.Budgets.get("project=" + proj + " endpoint=" + base)
	// The budget sits under the token source: it paces and retries the API's requests, not the
	// token exchange.
	client := &http.Client{Timeout: cfg.Timeout, Transport: &oauth2.Transport{
		Source: ts, Base: &transport{budget: b, next: http.DefaultTransport}}}
	svc, err := dns.NewService(ctx, option.WithHTTPClient(client), option.WithEndpoint(base))
	if err != nil {
		return nil, fmt.Errorf("Cloud DNS client: %w", err)
	}
	return &Provider{svc: svc, project: proj, budget: b, cfg: cfg, log: cfg.Logger, now: time.Now}, nil
}

// Capabilities implements provider.Provider. Cloud DNS serves stored wildcards; a record set written
// without a TTL gets 300 s, as with external-dns. Routing policies (weighted, geo, failover) are not
// implemented, so set identifiers are refused.
func (p *Provider) Capabilities() provider.Capabilities {
	return provider.Capabilities{RecordTypes: recordTypes, Wildcards: true, DefaultTTL: DefaultTTL}
}

// Probe implements provider.Prober: one page of one zone.
func (p *Provider) Probe(ctx context.Context) error {
	_, err := p.svc.ManagedZones.List(p.project).MaxResults(1).Context(ctx).Do()
	return describeError(err)
}

// Invalidate drops what was listed, so the next call lists the project again.
func (p *Provider) Invalidate() {
	p.mu.Lock()
	p.zones, p.sets, p.latest, p.listedAt = nil, nil, nil, nil
	p.mu.Unlock()
}

var (
	_ provider.Provider = (*Provider)(nil)
	_ provider.Prober   = (*Provider)(nil)
)
