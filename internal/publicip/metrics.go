package publicip

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics is told what the Discoverer does, for a gauge and a counter.
type Metrics interface {
	// AddressInForce is called when the address or its source changes.
	AddressInForce(a Address)
	// LookupFailed is called for every failed or rejected lookup, with the source's name.
	LookupFailed(source string)
}

// PrometheusMetrics implements Metrics with
//
//	zonekeeper_public_address_info{address,source} 1   (one series per address family in force)
//	zonekeeper_public_address_lookup_failures_total{source}
type PrometheusMetrics struct {
	info     *prometheus.GaugeVec
	failures *prometheus.CounterVec
}

// NewPrometheusMetrics registers the collectors with reg.
func NewPrometheusMetrics(reg prometheus.Registerer) (*PrometheusMetrics, error) {
	m := &PrometheusMetrics{
		info: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "zonekeeper_public_address_info",
			Help: "The public address in force and where it came from; always 1.",
		}, []string{"address", "source"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "zonekeeper_public_address_lookup_failures_total",
			Help: "Public address lookups that failed or returned an address that was rejected, by source.",
		}, []string{"source"}),
	}
	for _, c := range []prometheus.Collector{m.info, m.failures} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// AddressInForce implements Metrics: the previous series are dropped so only the current one is 1.
func (m *PrometheusMetrics) AddressInForce(a Address) {
	m.info.Reset()
	for _, x := range a.Addrs() {
		m.info.WithLabelValues(x.String(), a.Source).Set(1)
	}
}

// LookupFailed implements Metrics.
func (m *PrometheusMetrics) LookupFailed(source string) {
	m.failures.WithLabelValues(source).Inc()
}

type noMetrics struct{}

func (noMetrics) AddressInForce(Address) {}
func (noMetrics) LookupFailed(string)    {}
