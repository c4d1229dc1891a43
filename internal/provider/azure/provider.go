// Package azure is --provider=azure (Azure DNS) and --provider=azure-private-dns (Azure Private DNS)
// on the official armdns and armprivatedns SDKs with azidentity, configured by the azure.json file
// external-dns reads. See README.md.
package azure

import (
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/dns/armdns"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/privatedns/armprivatedns"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/pacing"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// defaultTTL is the TTL of a record written without one, external-dns's for Azure.
const defaultTTL = 300

// Config configures one provider instance.
type Config struct {
	// Private selects Azure Private DNS (--provider=azure-private-dns).
	Private bool
	// File is the loaded azure.json (LoadConfig).
	File FileConfig
	// DomainFilter selects the zones (by name) and the names written.
	DomainFilter plan.DomainFilter
	// ZoneIDFilter (--zone-id-filter) keeps the zones whose ARM resource id ends with one of its
	// values, as external-dns matches it ("/subscriptions/…/dnszones/example.com", or just its tail).
	ZoneIDFilter []string
	// MaxRetries is --azure-maxretries-count, azcore's retry count (429 with Retry-After, 5xx).
	MaxRetries int
	// ZonesCacheDuration is --azure-zones-cache-duration: how long the zone list is reused (0: listed
	// on every call, as external-dns's default).
	ZonesCacheDuration time.Duration
	// CAFile (--tls-ca) verifies Azure's endpoints instead of the system roots (Azure Stack, the
	// emulator).
	CAFile string
	// Transport replaces azcore's HTTP client (tests).
	Transport policy.Transporter
	// Now replaces the clock of the zone cache.
	Now func() time.Time
	// Pool holds the accounts' request budgets, shared by every instance of the provider kind (nil:
	// one of its own); Metrics receives the calls, throttles and rates (may be nil).
	Pool    *pacing.Pool
	Metrics pacing.Metrics
	// Rates replace ARM's documented limits (zero fields keep them).
	Rates Rates
}

// Provider is one Azure DNS or Private DNS resource group.
type Provider struct {
	cfg    Config
	b      backend
	budget *budget
	// opMu serialises Records, ApplyChanges and CheckZones, which read and update the zone cache.
	opMu sync.Mutex
	mu   sync.Mutex
	zc   []zoneRef
	zcAt time.Time
	// cache holds each selected zone's record sets as last listed or written (write-through), by zone
	// name; nil until the first listing (see zonecache.go). probed is the zone list the last CheckZones
	// read, which the next Records uses instead of listing the zones again.
	cache  map[string]*zoneCache
	probed []zoneRef
	// auto are the auto-registered record sets ("zone name type") the last listing saw.
	auto map[string]bool
}

// New builds the SDK clients and the credential from cfg; nothing is called yet.
func New(cfg Config) (*Provider, error) {
	if cfg.MaxRetries < 0 {
		return nil, fmt.Errorf("--azure-maxretries-count: %d is negative", cfg.MaxRetries)
	}
	if cfg.ZonesCacheDuration < 0 {
		return nil, fmt.Errorf("--azure-zones-cache-duration: %v is negative", cfg.ZonesCacheDuration)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	cl, err := cfg.File.CloudConfiguration()
	if err != nil {
		return nil, err
	}
	if cfg.Transport == nil && cfg.CAFile != "" {
		if cfg.Transport, err = caTransport(cfg.CAFile); err != nil {
			return nil, err
		}
	}
	opts := azcore.ClientOptions{Cloud: cl, Transport: cfg.Transport, Retry: policy.RetryOptions{MaxRetries: int32(cfg.MaxRetries)}}
	if cfg.MaxRetries == 0 {
		opts.Retry.MaxRetries = -1 // azcore reads 0 as its default of 3
	}
	cred, _, err := cfg.File.Credential(opts)
	if err != nil {
		return nil, err
	}
	name := "azure"
	if cfg.Private {
		name = "azure-private-dns"
	}
	if cfg.Pool == nil {
		cfg.Pool = pacing.NewPool(name, cfg.Metrics)
	}
	bud := newBudget(name, cfg.Pool, accountKey(cfg.File), cfg.Rates, cfg.Metrics)
	// The budget is a per-retry policy of the ARM clients only (the login's calls are not ARM's and
	// not counted): every attempt of azcore's retry loop waits for a token and is counted.
	ao := &arm.ClientOptions{ClientOptions: opts}
	ao.PerRetryPolicies = append(ao.PerRetryPolicies, bud)
	p := &Provider{cfg: cfg, budget: bud, auto: map[string]bool{}}
	sub, rg := cfg.File.SubscriptionID, cfg.File.ResourceGroup
	if cfg.Private {
		zc, err := armprivatedns.NewPrivateZonesClient(sub, cred, ao)
		if err != nil {
			return nil, err
		}
		rc, err := armprivatedns.NewRecordSetsClient(sub, cred, ao)
		if err != nil {
			return nil, err
		}
		p.b = &privateDNS{zc: zc, rc: rc, rg: rg}
	} else {
		zc, err := armdns.NewZonesClient(sub, cred, ao)
		if err != nil {
			return nil, err
		}
		rc, err := armdns.NewRecordSetsClient(sub, cred, ao)
		if err != nil {
			return nil, err
		}
		p.b = &publicDNS{zc: zc, rc: rc, rg: rg}
	}
	return p, nil
}

// Capabilities are the record types external-dns's Azure providers read and write.
func (p *Provider) Capabilities() provider.Capabilities {
	return provider.Capabilities{RecordTypes: p.b.types(), DefaultTTL: defaultTTL, Wildcards: true}
}

// zones lists the resource group's zones the domain filter selects, from the cache when it is fresh.
func (p *Provider) zones(ctx context.Context) ([]zoneRef, error) {
	return p.listZones(ctx, false)
}

// listZones is zones, with fresh true always listing (the zone probe).
func (p *Provider) listZones(ctx context.Context, fresh bool) ([]zoneRef, error) {
	p.mu.Lock()
	if !fresh && p.zc != nil && p.cfg.ZonesCacheDuration > 0 && p.cfg.Now().Sub(p.zcAt) < p.cfg.ZonesCacheDuration {
		defer p.mu.Unlock()
		return p.zc, nil
	}
	p.mu.Unlock()
	all, err := p.b.zones(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing zones of resource group %s: %w", p.cfg.File.ResourceGroup, err)
	}
	var out []zoneRef
	for _, z := range all {
		if (!p.cfg.DomainFilter.IsConfigured() || p.cfg.DomainFilter.Match(z.name)) && zoneIDMatches(p.cfg.ZoneIDFilter, z.id) {
			out = append(out, z)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	p.mu.Lock()
	p.zc, p.zcAt = out, p.cfg.Now()
	p.mu.Unlock()
	return out, nil
}

// writeZones are the zones ApplyChanges writes to: while record sets are cached, the zone list they
// were listed with (CheckZones reads it again at each resync), so a write costs no zone listing;
// otherwise the zone list.
func (p *Provider) writeZones(ctx context.Context) ([]zoneRef, error) {
	p.mu.Lock()
	zc, cached := p.zc, p.cache != nil
	p.mu.Unlock()
	if cached && zc != nil {
		return zc, nil
	}
	return p.zones(ctx)
}

// Records lists every record set of the selected zones with a type the provider handles. A zone in
// the cache (listed or written before, and not dropped by CheckZones) costs no call; the others are
// listed. The zone list is the one CheckZones just read, when there is one.
func (p *Provider) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	p.opMu.Lock()
	defer p.opMu.Unlock()
	p.mu.Lock()
	zones := p.probed
	p.probed = nil
	p.mu.Unlock()
	if zones == nil {
		var err error
		if zones, err = p.zones(ctx); err != nil {
			return nil, err
		}
	}
	p.keepOnly(zones)
	auto := map[string]bool{}
	var out []*endpoint.Endpoint
	for _, z := range zones {
		p.mu.Lock()
		c := p.cache[z.name]
		p.mu.Unlock()
		if c == nil {
			sets, total, err := p.b.recordSets(ctx, z.name)
			if err != nil {
				return nil, fmt.Errorf("listing record sets of zone %s: %w", z.name, err)
			}
			c = newZoneCache(sets, total, p.cfg.Now())
			p.mu.Lock()
			p.cache[z.name] = c
			p.mu.Unlock()
		}
		for _, rs := range c.list() {
			// The apex NS set belongs to Azure (it cannot be deleted), as Route 53's does to AWS.
			if len(rs.targets) == 0 || (rs.typ == "NS" && rs.name == "@") {
				continue
			}
			name := z.name
			if rs.name != "@" {
				name = strings.ToLower(rs.name) + "." + z.name
			}
			if rs.auto {
				auto[z.name+" "+strings.ToLower(rs.name)+" "+rs.typ] = true
			}
			out = append(out, endpoint.NewWithTTL(name, rs.typ, endpoint.TTL(rs.ttl), rs.targets...))
		}
	}
	p.mu.Lock()
	p.auto = auto
	p.mu.Unlock()
	return out, nil
}

// target is where one change goes: its zone and relative name.
func (p *Provider) target(zones []zoneRef, e *endpoint.Endpoint) (zone, name string, err error) {
	n := strings.ToLower(strings.TrimSuffix(e.DNSName, "."))
	for _, zr := range zones {
		z := zr.name
		if (n == z || strings.HasSuffix(n, "."+z)) && len(z) > len(zone) {
			zone = z
		}
	}
	if zone == "" {
		return "", "", fmt.Errorf("no zone of resource group %s holds %s", p.cfg.File.ResourceGroup, e.DNSName)
	}
	if n == zone {
		return zone, "@", nil
	}
	name = strings.TrimSuffix(n, "."+zone)
	p.mu.Lock()
	auto := p.auto[zone+" "+name+" "+e.RecordType]
	p.mu.Unlock()
	if auto {
		return "", "", fmt.Errorf("%s %s was registered by a virtual network link and is left alone", e.DNSName, e.RecordType)
	}
	return zone, name, nil
}

// ApplyChanges deletes, then writes each created or updated record set with one call each (the
// API has no batch). A refused change is reported in a *provider.ApplyError; the others go on. Each
// write is written through to the zone cache (a failed one drops its zone, to be listed again).
func (p *Provider) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	p.opMu.Lock()
	defer p.opMu.Unlock()
	zones, err := p.writeZones(ctx)
	if err != nil {
		return err
	}
	var rejected []provider.RejectedChange
	reject := func(a provider.Action, e *endpoint.Endpoint, err error) {
		rejected = append(rejected, provider.RejectedChange{Action: a, Endpoint: e, Err: err})
	}
	// Once azcore's retries of a 429 are spent, the account is throttled: the remaining changes are
	// rejected unsent (the controller retries them with backoff) rather than each spending its own
	// retries on 429s.
	var throttled error
	for _, e := range changes.Delete {
		zone, name, err := p.target(zones, e)
		if err == nil && throttled != nil {
			err = fmt.Errorf("not sent: %w", throttled)
		} else if err == nil {
			err = p.b.remove(ctx, zone, name, e.RecordType)
			p.wrote(zone, recordSet{name: name, typ: e.RecordType}, true, err)
			if isThrottled(err) {
				throttled = err
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			reject(provider.ActionDelete, e, err)
		}
	}
	writes := []struct {
		action provider.Action
		eps    []*endpoint.Endpoint
	}{{provider.ActionCreate, txtFirst(changes.Create)}, {provider.ActionUpdate, changes.UpdateNew}}
	for _, w := range writes {
		for _, e := range w.eps {
			zone, name, err := p.target(zones, e)
			if err == nil && throttled != nil {
				err = fmt.Errorf("not sent: %w", throttled)
			} else if err == nil {
				ttl := int64(defaultTTL)
				if e.RecordTTL.IsConfigured() {
					ttl = int64(e.RecordTTL)
				}
				rs := recordSet{name: name, typ: e.RecordType, ttl: ttl, targets: e.Targets}
				err = p.b.put(ctx, zone, rs)
				p.wrote(zone, rs, false, err)
				if isThrottled(err) {
					throttled = err
				}
			}
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				reject(w.action, e, err)
			}
		}
	}
	if len(rejected) > 0 {
		return &provider.ApplyError{Rejected: rejected}
	}
	return nil
}

// txtFirst orders creates with the TXT sets first. The API has no batch, so a record and its
// ownership TXT are two calls: when the writes stop half-way (the account throttled), a record is
// then never left without its ownership record, which would make it look foreign and never be
// written again; an ownership TXT without its record is completed by the next run.
func txtFirst(eps []*endpoint.Endpoint) []*endpoint.Endpoint {
	out := slices.Clone(eps)
	slices.SortStableFunc(out, func(a, b *endpoint.Endpoint) int {
		return cmp.Compare(b2i(a.RecordType != endpoint.RecordTypeTXT), b2i(b.RecordType != endpoint.RecordTypeTXT))
	})
	return out
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// isThrottled tells a 429 that azcore's retries did not get past.
func isThrottled(err error) bool {
	var re *azcore.ResponseError
	return errors.As(err, &re) && re.StatusCode == http.StatusTooManyRequests
}

// caTransport is an HTTP client that trusts only the CA file's certificates.
func caTransport(path string) (*http.Client, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--tls-ca: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("--tls-ca %s: no PEM certificate in it", path)
	}
	return &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment,
		TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}, nil
}

// zoneIDMatches is external-dns's zone id filter: no filter (or one empty value) keeps every zone;
// otherwise the id must end with one of the values.
func zoneIDMatches(filter []string, id string) bool {
	if len(filter) == 0 || (len(filter) == 1 && filter[0] == "") {
		return true
	}
	for _, f := range filter {
		if f != "" && strings.HasSuffix(id, f) {
			return true
		}
	}
	return false
}
