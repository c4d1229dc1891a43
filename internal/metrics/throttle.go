package metrics

import "github.com/prometheus/client_golang/prometheus"

func newThrottles(f func(prometheus.Collector)) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "zonekeeper_provider_throttled_total",
		Help: "Answers of the DNS provider's API that said \"too many requests\" (HTTP 429, Route 53 Throttling), by provider; each pauses the account's requests for the time the API asks.",
	}, []string{"provider"})
	f(c)
	return c
}

// ProviderThrottled counts one throttling answer of the provider's API.
func (m *Metrics) ProviderThrottled(provider string) {
	m.throttled.WithLabelValues(provider).Inc()
}
