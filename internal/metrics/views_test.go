package metrics

import (
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/controller"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

func scrape(t *testing.T, m *Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	b, _ := io.ReadAll(rec.Body)
	return string(b)
}

// Two views report to one Metrics: external-dns's gauges cover both (sums; the oldest success; the
// worst error streak) instead of flipping to whichever reported last, and each view has its own.
func TestMetricsOverViews(t *testing.T) {
	m := New("test")
	t0 := time.Unix(1_700_000_000, 0)
	m.Reconciled(controller.Report{View: "internal", Trigger: controller.TriggerResync, Started: t0, Finished: t0.Add(time.Second),
		Desired: 10, Current: 20, Problems: 2,
		Changes: &plan.Changes{Create: []*endpoint.Endpoint{endpoint.New("a.example.com", "A", "192.0.2.1")}}})
	m.Reconciled(controller.Report{View: "external", Trigger: controller.TriggerResync, Started: t0, Finished: t0.Add(5 * time.Second),
		Desired: 7, Current: 14, Problems: 2})
	m.Reconciled(controller.Report{View: "external", Trigger: controller.TriggerEvent, Started: t0, Finished: t0.Add(9 * time.Second),
		Err: errors.New("etcd down"), Stage: "provider"})
	out := scrape(t, m)
	for _, want := range []string{
		"external_dns_source_endpoints_total 17",
		"external_dns_registry_endpoints_total 34",
		"external_dns_source_invalid_endpoints 2",
		"external_dns_controller_consecutive_soft_errors 1",
		"external_dns_controller_last_sync_timestamp_seconds 1.700000001e+09", // internal's, the older
		`zonekeeper_view_last_sync_timestamp_seconds{view="external"} 1.700000005e+09`,
		`zonekeeper_view_endpoints{kind="current",view="internal"} 20`,
		`zonekeeper_view_consecutive_errors{view="external"} 1`,
		`zonekeeper_view_consecutive_errors{view="internal"} 0`,
		`zonekeeper_changes_applied_total{action="CREATE",record_type="A",view="internal"} 1`,
		`zonekeeper_sync_duration_seconds_count{trigger="event",view="external"} 1`,
	} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("missing %s", want)
		}
	}
}

// A view that has never synced keeps the process-wide last-sync gauge from claiming freshness.
func TestLastSyncWaitsForEveryView(t *testing.T) {
	m := New("test")
	t0 := time.Unix(1_700_000_000, 0)
	m.Reconciled(controller.Report{View: "external", Trigger: controller.TriggerStart, Started: t0, Finished: t0,
		Err: errors.New("no public address yet"), Stage: "source"})
	m.Reconciled(controller.Report{View: "internal", Trigger: controller.TriggerStart, Started: t0, Finished: t0.Add(time.Second)})
	if out := scrape(t, m); !strings.Contains(out, "external_dns_controller_last_sync_timestamp_seconds 0\n") {
		t.Error("last sync set while a view has never synced")
	}
}

func TestHeldByPolicyGauge(t *testing.T) {
	m := New("test")
	t0 := time.Unix(1_700_000_000, 0)
	held := []plan.HeldChange{{Action: plan.ActionDelete}, {Action: plan.ActionDelete}, {Action: plan.ActionUpdate}}
	m.Reconciled(controller.Report{Trigger: controller.TriggerResync, Started: t0, Finished: t0, HeldByPolicy: held})
	out := scrape(t, m)
	for _, want := range []string{`zonekeeper_changes_held_by_policy{action="DELETE",view=""} 2`, `zonekeeper_changes_held_by_policy{action="UPDATE",view=""} 1`} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("missing %s", want)
		}
	}
	m.Reconciled(controller.Report{Trigger: controller.TriggerResync, Started: t0, Finished: t0})
	if out := scrape(t, m); !strings.Contains(out, `zonekeeper_changes_held_by_policy{action="DELETE",view=""} 0`+"\n") {
		t.Error("the gauge does not fall back to 0")
	}
}
