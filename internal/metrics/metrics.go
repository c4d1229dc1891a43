// Package metrics exposes zonekeeper's Prometheus metrics. The names dashboards and alerts already use
// for external-dns (external_dns_*) keep their meaning; zonekeeper's own are prefixed zonekeeper_.
// Every metric lives in the Metrics value's own registry (no global state), served by Handler.
package metrics

import (
	"net/http"
	"runtime"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/zonekeeper/zonekeeper/internal/controller"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/publicip"
)

// Metrics holds every collector.
type Metrics struct {
	registry *prometheus.Registry

	// external-dns names.
	lastSync         prometheus.Gauge
	lastReconcile    prometheus.Gauge
	noOpRuns         prometheus.Counter
	consecutiveErrs  prometheus.Gauge
	sourceEndpoints  prometheus.Gauge
	registryEnds     prometheus.Gauge
	sourceErrors     prometheus.Counter
	registryErrors   prometheus.Counter
	invalidEndpoints prometheus.Gauge

	// zonekeeper's own.
	syncDuration      *prometheus.HistogramVec
	reconcilesByPlan  *prometheus.CounterVec
	changesApplied    *prometheus.CounterVec
	changesRejected   *prometheus.CounterVec
	eventToApplied    prometheus.Histogram
	providerCalls     *prometheus.CounterVec
	providerErrors    *prometheus.CounterVec
	providerLatency   *prometheus.HistogramVec
	isLeader          prometheus.Gauge
	publicIP          publicip.Metrics
	webhook           webhookCalls
	views             *viewStates
	heldByPolicy      *prometheus.GaugeVec
	sourceUnavailable *prometheus.GaugeVec
	guardHeld         *prometheus.GaugeVec
	throttled         *prometheus.CounterVec
	budget            apiBudget
}

// New creates the collectors in a fresh registry, with Go and process collectors and build info.
func New(version string) *Metrics {
	r := prometheus.NewRegistry()
	f := func(c prometheus.Collector) { r.MustRegister(c) }
	m := &Metrics{registry: r}

	m.lastSync = gauge(f, "external_dns", "controller", "last_sync_timestamp_seconds", "Time of the last successful reconcile, in seconds since the epoch.")
	m.lastReconcile = gauge(f, "external_dns", "controller", "last_reconcile_timestamp_seconds", "Time of the last reconcile attempt, in seconds since the epoch.")
	m.noOpRuns = counter(f, "external_dns", "controller", "no_op_runs_total", "Reconciles that found nothing to change.")
	m.consecutiveErrs = gauge(f, "external_dns", "controller", "consecutive_soft_errors", "Reconciles that failed in a row.")
	m.sourceEndpoints = gauge(f, "external_dns", "source", "endpoints_total", "Endpoints the sources want published.")
	m.registryEnds = gauge(f, "external_dns", "registry", "endpoints_total", "Records the registry found in the managed zones.")
	m.sourceErrors = counter(f, "external_dns", "source", "errors_total", "Reconciles that failed reading the sources.")
	m.registryErrors = counter(f, "external_dns", "registry", "errors_total", "Reconciles that failed reading or writing the registry or provider.")
	m.invalidEndpoints = gauge(f, "external_dns", "source", "invalid_endpoints", "Pieces of invalid input (annotations, addresses) ignored in the last reconcile.")

	m.syncDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "zonekeeper_sync_duration_seconds", Help: "Duration of a reconcile, by trigger (start, event, resync, retry, once) and view.",
		Buckets: prometheus.ExponentialBuckets(0.001, 2, 16),
	}, []string{"trigger", "view"})
	f(m.syncDuration)
	m.reconcilesByPlan = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "zonekeeper_reconciles_total", Help: "Reconciles that got as far as planning, by view and plan: names (an event's plan of the names it touched) or full.",
	}, []string{"view", "plan"})
	f(m.reconcilesByPlan)
	m.changesApplied = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "zonekeeper_changes_applied_total", Help: "Record set changes the provider accepted, by action, record type and view.",
	}, []string{"action", "record_type", "view"})
	f(m.changesApplied)
	m.changesRejected = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "zonekeeper_changes_rejected_total", Help: "Record set changes the provider rejected, by action, record type and view.",
	}, []string{"action", "record_type", "view"})
	f(m.changesRejected)
	m.eventToApplied = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "zonekeeper_event_to_applied_seconds", Help: "Time from a Kubernetes event to the end of the reconcile that applied it.",
		Buckets: prometheus.ExponentialBuckets(0.01, 2, 12),
	})
	f(m.eventToApplied)
	m.providerCalls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "zonekeeper_provider_calls_total", Help: "Calls to the DNS provider, by provider and operation.",
	}, []string{"provider", "operation"})
	f(m.providerCalls)
	m.providerErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "zonekeeper_provider_errors_total", Help: "Failed calls to the DNS provider, by provider, operation and kind (rejected: some changes refused; failed: the call failed).",
	}, []string{"provider", "operation", "kind"})
	f(m.providerErrors)
	m.providerLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "zonekeeper_provider_call_duration_seconds", Help: "Duration of calls to the DNS provider.",
		Buckets: prometheus.ExponentialBuckets(0.001, 2, 16),
	}, []string{"provider", "operation"})
	f(m.providerLatency)
	m.webhook = newWebhookCalls(f)
	m.views = newViewStates(f)
	m.heldByPolicy = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "zonekeeper_changes_held_by_policy", Help: "Changes to our records that --policy forbids in the last reconcile, by action and view: records that stay although no object asks for them as they are.",
	}, []string{"action", "view"})
	f(m.heldByPolicy)
	m.isLeader = gauge(f, "zonekeeper", "", "leader", "1 when this replica is the leader (or leader election is off), 0 otherwise.")
	m.sourceUnavailable = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "zonekeeper_source_unavailable", Help: "1 while a --source kind cannot run fully (its CRD is not installed, or RBAC denies a resource it reads); its records are kept meanwhile.",
	}, []string{"source"})
	f(m.sourceUnavailable)
	m.guardHeld = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "zonekeeper_guard_held_changes", Help: "Deletes and updates the mass-change guard holds in the last reconcile, by view and zone (--guard-*); 0 once they pass or shrink below the threshold.",
	}, []string{"view", "zone"})
	f(m.guardHeld)
	m.throttled = newThrottles(f)
	m.budget = newAPIBudget(f)

	// Registration fails only for duplicates, which a fresh registry cannot have.
	m.publicIP, _ = publicip.NewPrometheusMetrics(r)

	buildInfo := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "external_dns_build_info", Help: "Build information; always 1.",
	}, []string{"version", "go_version", "os", "arch"})
	f(buildInfo)
	buildInfo.WithLabelValues(version, runtime.Version(), runtime.GOOS, runtime.GOARCH).Set(1)
	f(collectors.NewGoCollector())
	f(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func gauge(f func(prometheus.Collector), ns, sub, name, help string) prometheus.Gauge {
	g := prometheus.NewGauge(prometheus.GaugeOpts{Namespace: ns, Subsystem: sub, Name: name, Help: help})
	f(g)
	return g
}

func counter(f func(prometheus.Collector), ns, sub, name, help string) prometheus.Counter {
	c := prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Subsystem: sub, Name: name, Help: help})
	f(c)
	return c
}

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{Registry: m.registry})
}

// PublicAddress returns the metrics of public address discovery.
func (m *Metrics) PublicAddress() publicip.Metrics { return m.publicIP }

// SourceState sets zonekeeper_source_unavailable for a source kind.
func (m *Metrics) SourceState(kind string, err error) {
	v := 0.0
	if err != nil {
		v = 1
	}
	m.sourceUnavailable.WithLabelValues(kind).Set(v)
}

// SetLeader records whether this replica leads.
func (m *Metrics) SetLeader(leader bool) {
	if leader {
		m.isLeader.Set(1)
	} else {
		m.isLeader.Set(0)
	}
}

// Reconciled implements controller.Observer.
func (m *Metrics) Reconciled(r controller.Report) {
	m.lastReconcile.Set(float64(r.Finished.UnixNano()) / 1e9)
	m.syncDuration.WithLabelValues(string(r.Trigger), r.View).Observe(r.Finished.Sub(r.Started).Seconds())
	t := m.views.record(r)
	m.consecutiveErrs.Set(float64(t.mostConsecutiveErrors))
	m.budget.unreadableZones(r)
	if r.Err != nil {
		if r.Stage == "source" {
			m.sourceErrors.Inc()
		} else {
			m.registryErrors.Inc()
		}
		return
	}
	if r.Changes != nil {
		kind := "full"
		if r.Scope != nil {
			kind = "names"
		}
		m.reconcilesByPlan.WithLabelValues(r.View, kind).Inc()
	}
	held := map[plan.Action]int{plan.ActionUpdate: 0, plan.ActionDelete: 0}
	for _, h := range r.HeldByPolicy {
		if !h.Unreadable {
			held[h.Action]++
		}
	}
	m.guardHeld.DeletePartialMatch(prometheus.Labels{"view": r.View})
	for _, v := range r.Guard {
		if v.Held {
			m.guardHeld.WithLabelValues(r.View, v.Zone).Set(float64(v.Deletes + v.Updates))
		}
	}
	for action, n := range held {
		if r.Scope != nil {
			break // an event's plan knows the held changes of the names it touched only
		}
		m.heldByPolicy.WithLabelValues(string(action), r.View).Set(float64(n))
	}
	// With views: the oldest view's last success (a stale view shows), and sums over the views.
	if !t.oldestSync.IsZero() {
		m.lastSync.Set(float64(t.oldestSync.UnixNano()) / 1e9)
	}
	m.sourceEndpoints.Set(float64(t.desired))
	m.registryEnds.Set(float64(t.current))
	m.invalidEndpoints.Set(float64(t.problems))
	if !r.FirstEvent.IsZero() {
		m.eventToApplied.Observe(r.Finished.Sub(r.FirstEvent).Seconds())
	}
	if r.Changes == nil || !r.Changes.HasChanges() {
		m.noOpRuns.Inc()
		return
	}
	rejected := make(map[endpoint.Key]bool, len(r.Rejected))
	for _, x := range r.Rejected {
		rejected[x.Endpoint.Key()] = true
		m.changesRejected.WithLabelValues(string(x.Action), x.Endpoint.RecordType, r.View).Inc()
	}
	count := func(action string, eps []*endpoint.Endpoint) {
		for _, e := range eps {
			if !rejected[e.Key()] {
				m.changesApplied.WithLabelValues(action, e.RecordType, r.View).Inc()
			}
		}
	}
	count("CREATE", r.Changes.Create)
	count("UPDATE", r.Changes.UpdateNew)
	count("DELETE", r.Changes.Delete)
}
