// Package azure is --provider=azure (Azure DNS) and --provider=azure-private-dns (Azure Private DNS)
// on the official armdns and armprivatedns SDKs with azidentity, configured by the azure.json file
// external-dns reads. See README.md.
package azure

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
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
}

// Provider is one Azure DNS or Private DNS resource group.
type Provider struct {
	cfg  Config
	b    backend
	mu   sync.Mutex
	zc   []string
	zcAt time.Time
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
	ao := &arm.ClientOptions{ClientOptions: opts}
	p := &Provider{cfg: cfg, auto: map[string]bool{}}
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
func (p *Provider) zones(ctx context.Context) ([]string, error) {
	p.mu.Lock()
	if p.zc != nil && p.cfg.ZonesCacheDuration > 0 && p.cfg.Now().Sub(p.zcAt) < p.cfg.ZonesCacheDuration {
		defer p.mu.Unlock()
		return p.zc, nil
	}
	p.mu.Unlock()
	all, err := p.b.zones(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing zones of resource group %s: %w", p.cfg.File.ResourceGroup, err)
	}
	var out []string
	for _, z := range all {
		if (!p.cfg.DomainFilter.IsConfigured() || p.cfg.DomainFilter.Match(z.name)) && zoneIDMatches(p.cfg.ZoneIDFilter, z.id) {
			out = append(out, z.name)
		}
	}
	sort.Strings(out)
	p.mu.Lock()
	p.zc, p.zcAt = out, p.cfg.Now()
	p.mu.Unlock()
	return out, nil
}

// Records lists every record set of the selected zones with a type the provider handles.
func (p *Provider) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	zones, err := p.zones(ctx)
	if err != nil {
		return nil, err
	}
	auto := map[string]bool{}
	var out []*endpoint.Endpoint
	for _, z := range zones {
		sets, err := p.b.recordSets(ctx, z)
		if err != nil {
			return nil, fmt.Errorf("listing record sets of zone %s: %w", z, err)
		}
		for _, rs := range sets {
			// The apex NS set belongs to Azure (it cannot be deleted), as Route 53's does to AWS.
			if len(rs.targets) == 0 || (rs.typ == "NS" && rs.name == "@") {
				continue
			}
			name := z
			if rs.name != "@" {
				name = strings.ToLower(rs.name) + "." + z
			}
			if rs.auto {
				auto[z+" "+strings.ToLower(rs.name)+" "+rs.typ] = true
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
func (p *Provider) target(zones []string, e *endpoint.Endpoint) (zone, name string, err error) {
	n := strings.ToLower(strings.TrimSuffix(e.DNSName, "."))
	for _, z := range zones {
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
// API has no batch). A refused change is reported in a *provider.ApplyError; the others go on.
func (p *Provider) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	zones, err := p.zones(ctx)
	if err != nil {
		return err
	}
	var rejected []provider.RejectedChange
	reject := func(a provider.Action, e *endpoint.Endpoint, err error) {
		rejected = append(rejected, provider.RejectedChange{Action: a, Endpoint: e, Err: err})
	}
	for _, e := range changes.Delete {
		zone, name, err := p.target(zones, e)
		if err == nil {
			err = p.b.remove(ctx, zone, name, e.RecordType)
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
	}{{provider.ActionCreate, changes.Create}, {provider.ActionUpdate, changes.UpdateNew}}
	for _, w := range writes {
		for _, e := range w.eps {
			zone, name, err := p.target(zones, e)
			if err == nil {
				ttl := int64(defaultTTL)
				if e.RecordTTL.IsConfigured() {
					ttl = int64(e.RecordTTL)
				}
				err = p.b.put(ctx, zone, recordSet{name: name, typ: e.RecordType, ttl: ttl, targets: e.Targets})
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
