package metrics

import "github.com/prometheus/client_golang/prometheus"

// webhookCalls are external-dns's webhook client counters,
// external_dns_webhook_provider_{records,applychanges,adjustendpoints}_{requests,errors}_total.
type webhookCalls struct {
	requests map[string]prometheus.Counter
	errors   map[string]prometheus.Counter
}

func newWebhookCalls(f func(prometheus.Collector)) webhookCalls {
	w := webhookCalls{requests: map[string]prometheus.Counter{}, errors: map[string]prometheus.Counter{}}
	for call, what := range map[string]string{
		"records":         "GET /records",
		"applychanges":    "POST /records",
		"adjustendpoints": "POST /adjustendpoints",
	} {
		w.requests[call] = counter(f, "external_dns", "webhook_provider", call+"_requests_total", "Requests to the webhook provider: "+what+".")
		w.errors[call] = counter(f, "external_dns", "webhook_provider", call+"_errors_total", "Failed requests to the webhook provider: "+what+".")
	}
	return w
}

// WebhookRequest counts a request of the webhook client (call: records, applychanges or
// adjustendpoints).
func (m *Metrics) WebhookRequest(call string) {
	if c, ok := m.webhook.requests[call]; ok {
		c.Inc()
	}
}

// WebhookError counts a failed request of the webhook client.
func (m *Metrics) WebhookError(call string) {
	if c, ok := m.webhook.errors[call]; ok {
		c.Inc()
	}
}
