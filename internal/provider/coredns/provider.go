// Package coredns is a provider that writes records to etcd in the SkyDNS layout served by CoreDNS's
// etcd plugin, compatible with what external-dns's coredns provider reads and writes. See README.md
// for the key layout and for what differs from external-dns.
package coredns

import (
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// GroupProperty is the provider-specific property whose value becomes the SkyDNS "group" of every
// value of a record set (external-dns's coredns-group annotation).
const GroupProperty = "coredns/group"

// Provider reads and writes records in etcd. It keeps no state between calls besides the client: every
// call reads what it needs from etcd.
type Provider struct {
	client  *clientv3.Client
	layout  keyLayout
	zones   zoneSet
	timeout time.Duration
	maxOps  int
	page    int
}

// New connects to etcd (lazily: an unreachable etcd surfaces on the first call, within Timeout).
func New(cfg Config) (*Provider, error) {
	cfg = cfg.withDefaults()
	secure, err := cfg.secure()
	if err != nil {
		return nil, err
	}
	cc := clientv3.Config{
		Endpoints:   cfg.Endpoints,
		DialTimeout: cfg.Timeout,
		Username:    cfg.Username,
		Password:    cfg.Password,
		// The client logs connection retries at warn level on every failed attempt; the provider reports
		// failures through its errors instead.
		Logger: zap.NewNop(),
		// Reconnect quickly after an etcd restart: gRPC's default backoff grows to two minutes, which
		// would keep failing reconciles long after etcd is back.
		DialOptions: []grpc.DialOption{grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: 2 * time.Second},
			MinConnectTimeout: cfg.Timeout,
		})},
	}
	if secure {
		if cc.TLS, err = cfg.tlsConfig(); err != nil {
			return nil, err
		}
	}
	client, err := clientv3.New(cc)
	if err != nil {
		return nil, fmt.Errorf("etcd client for %v: %w", cfg.Endpoints, err)
	}
	return &Provider{
		client:  client,
		layout:  keyLayout{prefix: cfg.Prefix},
		zones:   newZoneSet(cfg.DomainFilter),
		timeout: cfg.Timeout,
		maxOps:  cfg.MaxTxnOps,
		page:    cfg.PageSize,
	}, nil
}

// Close releases the etcd client.
func (p *Provider) Close() error { return p.client.Close() }

// Capabilities implements provider.Provider. Wildcards are not servable from etcd (CoreDNS treats a
// stored "*" as a plain label) and there is no place for a set identifier in the layout.
func (p *Provider) Capabilities() provider.Capabilities {
	return provider.Capabilities{
		RecordTypes:   []string{endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME, endpoint.RecordTypeTXT},
		SetIdentifier: false,
		Wildcards:     false,
		DefaultTTL:    300,
	}
}
