package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/zonekeeper/zonekeeper/internal/controller"
	"github.com/zonekeeper/zonekeeper/internal/pacing"
)

var _ pacing.Metrics = (*Metrics)(nil)

// apiBudget are the collectors of the providers' API budget (issue 16): every attempt by provider,
// zone and call, the throttled ones, each account's current rate, and the zones left out because they
// cannot be listed.
type apiBudget struct {
	calls      *prometheus.CounterVec
	throttles  *prometheus.CounterVec
	rate       *prometheus.GaugeVec
	unreadable *prometheus.GaugeVec
}

func newAPIBudget(f func(prometheus.Collector)) apiBudget {
	b := apiBudget{
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "zonekeeper_provider_api_calls_total",
			Help: "HTTP requests to the DNS provider's API (retries included), by provider, zone (empty: about no zone) and call (the API operation).",
		}, []string{"provider", "zone", "call"}),
		throttles: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "zonekeeper_provider_api_throttles_total",
			Help: "Requests the DNS provider's API answered \"too many requests\" (Route 53 Throttling, PriorRequestNotComplete, HTTP 429), by provider, zone and call.",
		}, []string{"provider", "zone", "call"}),
		rate: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "zonekeeper_provider_api_rate",
			Help: "Current rate of the client-side limiter, in requests per second, by provider and account (lowered on throttling, recovering slowly).",
		}, []string{"provider", "account"}),
		unreadable: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "zonekeeper_zone_unreadable",
			Help: "1 while a zone cannot be listed (access denied): it is left out of planning, its records are neither created nor deleted. By view and zone.",
		}, []string{"view", "zone"}),
	}
	f(b.calls)
	f(b.throttles)
	f(b.rate)
	f(b.unreadable)
	return b
}

// APICall implements pacing.Metrics.
func (m *Metrics) APICall(provider, zone, call string, throttled bool) {
	m.budget.calls.WithLabelValues(provider, zone, call).Inc()
	if throttled {
		m.budget.throttles.WithLabelValues(provider, zone, call).Inc()
		m.ProviderThrottled(provider)
	}
}

// APIRate implements pacing.Metrics.
func (m *Metrics) APIRate(provider, account string, perSecond float64) {
	m.budget.rate.WithLabelValues(provider, account).Set(perSecond)
}

// unreadableZones sets the zones a reconcile left out.
func (b apiBudget) unreadableZones(r controller.Report) {
	b.unreadable.DeletePartialMatch(prometheus.Labels{"view": r.View})
	for _, z := range r.UnreadableZones {
		b.unreadable.WithLabelValues(r.View, z).Set(1)
	}
}
