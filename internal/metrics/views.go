package metrics

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zonekeeper/zonekeeper/internal/controller"
)

// viewStates keeps each view's latest reconcile figures. With split horizon every view has its own
// controller reporting to the same Metrics; external-dns's process-wide gauges are computed over all
// views instead of showing whichever view reported last, and zonekeeper's per-view gauges show each.
type viewStates struct {
	mu     sync.Mutex
	states map[string]*viewState

	lastSync    *prometheus.GaugeVec // zonekeeper_view_last_sync_timestamp_seconds{view}
	endpoints   *prometheus.GaugeVec // zonekeeper_view_endpoints{view,kind}
	consecutive *prometheus.GaugeVec // zonekeeper_view_consecutive_errors{view}
}

type viewState struct {
	lastSync                   time.Time
	desired, current, problems int
	consecutiveErrors          int
}

func newViewStates(f func(prometheus.Collector)) *viewStates {
	v := &viewStates{states: map[string]*viewState{}}
	v.lastSync = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "zonekeeper_view_last_sync_timestamp_seconds", Help: "Time of the view's last successful reconcile, in seconds since the epoch (view is empty without --view).",
	}, []string{"view"})
	v.endpoints = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "zonekeeper_view_endpoints", Help: "The view's endpoints in its last successful reconcile: desired (from the sources, after the view's rules) and current (records in its zones).",
	}, []string{"view", "kind"})
	v.consecutive = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "zonekeeper_view_consecutive_errors", Help: "Reconciles of the view that failed in a row.",
	}, []string{"view"})
	f(v.lastSync)
	f(v.endpoints)
	f(v.consecutive)
	return v
}

// totals are external-dns's gauges over every view.
type totals struct {
	oldestSync                 time.Time // zero while some view has never synced
	desired, current, problems int
	mostConsecutiveErrors      int
}

// record stores a report and returns the totals over all views.
func (v *viewStates) record(r controller.Report) totals {
	v.mu.Lock()
	defer v.mu.Unlock()
	s := v.states[r.View]
	if s == nil {
		s = &viewState{}
		v.states[r.View] = s
	}
	if r.Err != nil {
		s.consecutiveErrors++
	} else {
		s.consecutiveErrors = 0
		s.lastSync = r.Finished
		v.lastSync.WithLabelValues(r.View).Set(float64(r.Finished.UnixNano()) / 1e9)
		if r.Scope == nil { // an event's plan counts the names it touched only
			s.desired, s.current, s.problems = r.Desired, r.Current, r.Problems
			v.endpoints.WithLabelValues(r.View, "desired").Set(float64(r.Desired))
			v.endpoints.WithLabelValues(r.View, "current").Set(float64(r.Current))
		}
	}
	v.consecutive.WithLabelValues(r.View).Set(float64(s.consecutiveErrors))

	var t totals
	first := true
	for _, s := range v.states {
		t.desired += s.desired
		t.current += s.current
		// Every view reads the same sources: their problems are the same, not additional.
		t.problems = max(t.problems, s.problems)
		t.mostConsecutiveErrors = max(t.mostConsecutiveErrors, s.consecutiveErrors)
		switch {
		case s.lastSync.IsZero():
			t.oldestSync, first = time.Time{}, false
		case first:
			t.oldestSync, first = s.lastSync, false
		case !t.oldestSync.IsZero() && s.lastSync.Before(t.oldestSync):
			t.oldestSync = s.lastSync
		}
	}
	return t
}
