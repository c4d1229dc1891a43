package publicip

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/kube"
)

// Source kinds, as named in Config.Order and --public-ip-source-order.
const (
	KindStatic  = "static"
	KindNode    = "node"
	KindService = "service"
	KindEcho    = "echo"
	KindSTUN    = "stun"
)

// DefaultOrder is the priority of the configured sources when Config.Order is empty: what the cluster
// itself reports first, then the probes, and the static value last, as the fallback when everything
// else fails.
var DefaultOrder = []string{KindNode, KindService, KindEcho, KindSTUN, KindStatic}

// Defaults.
const (
	DefaultRefreshInterval = 5 * time.Minute
	DefaultLookupTimeout   = 10 * time.Second
)

// Config selects the sources and how they are used. Only the sources whose fields are set take part.
type Config struct {
	// Static is --public-ip: at most one IPv4 and one IPv6 address.
	Static []netip.Addr
	// Kube is needed for NodeName and Service.
	Kube *kube.Client
	// NodeName is --public-ip-from-node: the Node whose ExternalIP addresses are used.
	NodeName string
	// ServiceNamespace and ServiceName are --public-ip-from-service (namespace/name): the Service whose
	// status.loadBalancer.ingress IPs are used.
	ServiceNamespace, ServiceName string
	// EchoURL is --public-ip-echo-url: an HTTP(S) URL answering the caller's address as text.
	EchoURL string
	// HTTPClient is used for EchoURL; nil means a client of its own.
	HTTPClient *http.Client
	// STUNServer is --public-ip-stun-server: host:port of a STUN server (UDP).
	STUNServer string
	// STUNInitialRTO is the first STUN retransmission timeout; 0 means RFC 5389's 500 ms.
	STUNInitialRTO time.Duration

	// Order lists source kinds (Kind*) in priority order; empty means DefaultOrder. Every configured
	// source must be listed.
	Order []string
	// Extra sources tried after the configured ones, in order (for callers with sources of their own).
	Extra []Source

	// RefreshInterval is how often the lookup runs; 0 means DefaultRefreshInterval.
	RefreshInterval time.Duration
	// LookupTimeout bounds one source's lookup (the STUN retransmissions included); 0 means
	// DefaultLookupTimeout.
	LookupTimeout time.Duration
	// AllowPrivate lets private (RFC 1918), CGNAT, loopback, link-local and ULA addresses through.
	AllowPrivate bool

	// Logger receives "Public address in force" and "Public address lookup failed"; nil discards.
	Logger *slog.Logger
	// Metrics receives the address in force and lookup failures; nil discards.
	Metrics Metrics
}

// Enabled reports whether any source is configured, that is whether the caller needs a Discoverer.
func (c Config) Enabled() bool {
	return len(c.Static) > 0 || c.NodeName != "" || c.ServiceName != "" || c.EchoURL != "" || c.STUNServer != "" || len(c.Extra) > 0
}

// sources builds the configured sources in priority order, and the static one when configured.
func (c Config) sources() ([]Source, *StaticSource, error) {
	built := map[string]Source{}
	var static *StaticSource
	var errs []error
	if len(c.Static) > 0 {
		s, err := NewStaticSource(c.Static...)
		if err != nil {
			errs = append(errs, err)
		} else {
			static = s
			built[KindStatic] = s
		}
	}
	if c.NodeName != "" || c.ServiceName != "" || c.ServiceNamespace != "" {
		if c.Kube == nil {
			errs = append(errs, errors.New("--public-ip-from-node and --public-ip-from-service need Kubernetes access"))
		}
	}
	if c.NodeName != "" && c.Kube != nil {
		built[KindNode] = &NodeSource{Client: c.Kube, Node: c.NodeName}
	}
	if c.ServiceName != "" || c.ServiceNamespace != "" {
		if c.ServiceName == "" || c.ServiceNamespace == "" {
			errs = append(errs, fmt.Errorf("--public-ip-from-service=%q: want namespace/name", c.ServiceNamespace+"/"+c.ServiceName))
		} else if c.Kube != nil {
			built[KindService] = &ServiceSource{Client: c.Kube, Namespace: c.ServiceNamespace, Service: c.ServiceName}
		}
	}
	if c.EchoURL != "" {
		s, err := NewEchoSource(c.EchoURL, c.HTTPClient)
		if err != nil {
			errs = append(errs, err)
		} else {
			built[KindEcho] = s
		}
	}
	if c.STUNServer != "" {
		if _, _, err := splitHostPortStrict(c.STUNServer); err != nil {
			errs = append(errs, err)
		} else {
			built[KindSTUN] = &STUNSource{Server: c.STUNServer, InitialRTO: c.STUNInitialRTO}
		}
	}
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}

	order := c.Order
	if len(order) == 0 {
		order = DefaultOrder
	}
	var out []Source
	for _, k := range order {
		if !slices.Contains(DefaultOrder, k) {
			return nil, nil, fmt.Errorf("--public-ip-source-order: unknown source %q (want %s)", k, strings.Join(DefaultOrder, ", "))
		}
		if s, ok := built[k]; ok {
			out = append(out, s)
			delete(built, k)
		}
	}
	for _, k := range DefaultOrder {
		if _, ok := built[k]; ok {
			return nil, nil, fmt.Errorf("--public-ip-source-order=%s leaves out the configured source %q", strings.Join(order, ","), k)
		}
	}
	out = append(out, c.Extra...)
	return out, static, nil
}

func splitHostPortStrict(hp string) (string, string, error) {
	host, port, err := net.SplitHostPort(hp)
	if err != nil || host == "" || port == "" {
		return "", "", fmt.Errorf("--public-ip-stun-server=%q: want host:port (for example stun.example.net:3478)", hp)
	}
	return host, port, nil
}
