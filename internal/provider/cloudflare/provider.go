// Package cloudflare is --provider=cloudflare: records in Cloudflare DNS through the official
// cloudflare-go SDK (v7, as external-dns v0.23), configured like external-dns's cloudflare provider.
// Writes go through the batch endpoint; a refused batch is bisected down to the refused records,
// which are reported while the rest is applied. See README.md.
package cloudflare

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/cloudflare/cloudflare-go/v7/option"
	"github.com/cloudflare/cloudflare-go/v7/zones"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// recordTypes are the types the provider reads and writes (external-dns v0.23's Cloudflare set). TLSA
// is written as structured data (usage, selector, matching type, certificate) and read back from the
// content with the digest in lower case, as v0.23 does.
var recordTypes = []string{
	endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME, endpoint.RecordTypeTXT,
	endpoint.RecordTypeMX, endpoint.RecordTypeNS, endpoint.RecordTypeSRV, endpoint.RecordTypeTLSA,
}

// proxiableTypes are the types Cloudflare can proxy.
var proxiableTypes = []string{endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME}

// Provider reads and writes the records of the managed zones of one Cloudflare account.
type Provider struct {
	client  *sdkClient
	account *account
	cfg     Config
	filter  domainFilter
	log     *slog.Logger

	mu sync.Mutex
	// zones are the managed zones as last listed, nil until listed; index holds, per zone id, the
	// records as last listed or written (write-through: the registry calls Records once per
	// --interval only).
	zones []zone
	index map[string]*zoneIndex
	// regionalByZone holds each zone's regional hostnames (hostname → region key) as last listed or
	// written, with Regional Services on.
	regionalByZone map[string]map[string]string
	// customByZone holds each zone's custom hostnames as last listed or written, with custom hostnames
	// on.
	customByZone map[string]map[string]customHostname
	// counts holds, per zone id, how many records the zone holds (any type, any name) as last listed,
	// kept up to date with our own creates and deletes; listedAt is when each zone was listed. The
	// zone probe compares the API's count with it (CheckZones).
	counts   map[string]int
	listedAt map[string]time.Time
	// zonesListedAt is when the zone list was read: the full relisting is due by its age too, so
	// that a new zone is found even where no zone was managed yet.
	zonesListedAt time.Time
	now           func() time.Time
}

// New checks the configuration and returns the provider. It makes no request.
func New(cfg Config) (*Provider, error) {
	if cfg.Getenv == nil {
		cfg.Getenv = os.Getenv
	}
	if cfg.RecordsPerPage <= 0 {
		cfg.RecordsPerPage = DefaultRecordsPerPage
	}
	if cfg.BatchChangeSize <= 0 {
		cfg.BatchChangeSize = DefaultBatchChangeSize
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Accounts == nil {
		cfg.Accounts = newAccounts(DefaultRequestsPerSecond, nil)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	creds, err := readCredentials(cfg.Getenv)
	if err != nil {
		return nil, err
	}
	base, err := baseURL(cfg.Getenv)
	if err != nil {
		return nil, err
	}
	acct := cfg.Accounts.get(creds.id(base))
	opts := []option.RequestOption{
		option.WithBaseURL(base),
		option.WithHTTPClient(&http.Client{Timeout: cfg.Timeout}),
		// The account's middleware does all the retrying (429s pause the whole account).
		option.WithMaxRetries(0),
		option.WithMiddleware(acct.middleware),
	}
	if creds.token != "" {
		opts = append(opts, option.WithAPIToken(creds.token))
	} else {
		opts = append(opts, option.WithAPIKey(creds.key), option.WithAPIEmail(creds.email))
	}
	return &Provider{
		client: newSDKClient(opts...), account: acct, cfg: cfg,
		filter: newDomainFilter(cfg.DomainFilter), log: cfg.Logger, now: time.Now,
	}, nil
}

// Capabilities implements provider.Provider. Cloudflare serves stored wildcards; a record without a
// TTL is written with TTL 1 ("automatic"). Proxying is for A, AAAA and CNAME records only; a region
// key needs Regional Services and a custom hostname needs custom hostnames on: a record that asks
// otherwise is a problem on its object.
func (p *Provider) Capabilities() provider.Capabilities {
	region := provider.PropertyLimit{Name: propRegionKey, RecordTypes: regionalTypes,
		Reason: "regional hostnames are for A, AAAA and CNAME records only (cloudflare-region-key)"}
	if !p.regional() {
		region = provider.PropertyLimit{Name: propRegionKey,
			Reason: "cloudflare-region-key needs Regional Services on (--cloudflare-regional-services or --cloudflare-region-key)"}
	}
	caps := provider.Capabilities{
		RecordTypes: recordTypes,
		Wildcards:   true,
		DefaultTTL:  autoTTL,
		Properties: []provider.PropertyLimit{
			{Name: propProxied, Off: []string{"false", "0", "f", "F", "FALSE", "False"}, RecordTypes: proxiableTypes,
				Reason: "Cloudflare proxies A, AAAA and CNAME records only (cloudflare-proxied)"},
			region,
		},
	}
	if !p.cfg.CustomHostnames {
		caps.Properties = append(caps.Properties, provider.PropertyLimit{Name: propCustomHostname,
			Reason: "cloudflare-custom-hostname needs custom hostnames on (--cloudflare-custom-hostnames, with Cloudflare for SaaS)"})
	}
	return caps
}

// Probe implements provider.Prober: one page of one zone.
func (p *Provider) Probe(ctx context.Context) error {
	var params zones.ZoneListParams
	params.PerPage.Value, params.PerPage.Present = 5, true
	_, err := p.client.Zones.List(ctx, params)
	return describeError(err)
}

// Invalidate drops what was listed, so the next call lists the account again.
func (p *Provider) Invalidate() {
	p.mu.Lock()
	p.zones, p.index, p.regionalByZone, p.customByZone = nil, nil, nil, nil
	p.counts, p.listedAt, p.zonesListedAt = nil, nil, time.Time{}
	p.mu.Unlock()
}

var (
	_ provider.Provider         = (*Provider)(nil)
	_ provider.EndpointAdjuster = (*Provider)(nil)
	_ provider.Prober           = (*Provider)(nil)
)
