package bench

import (
	"testing"
	"time"
)

const scrapeBefore = `# HELP zonekeeper_provider_call_duration_seconds Duration of calls to the DNS provider.
zonekeeper_provider_call_duration_seconds_sum{operation="apply_changes",provider="builtin"} 1.5
zonekeeper_provider_call_duration_seconds_count{operation="apply_changes",provider="builtin"} 1
zonekeeper_provider_call_duration_seconds_sum{operation="records",provider="builtin"} 4
zonekeeper_provider_call_duration_seconds_count{operation="records",provider="builtin"} 2
external_dns_registry_endpoints_total 2e+06
external_dns_registry_endpoints_total_extra 7
`

const scrapeAfter = `zonekeeper_provider_call_duration_seconds_sum{operation="apply_changes",provider="builtin"} 2.5
zonekeeper_provider_call_duration_seconds_count{operation="apply_changes",provider="builtin"} 5
zonekeeper_provider_call_duration_seconds_sum{operation="records",provider="builtin"} 4
zonekeeper_provider_call_duration_seconds_count{operation="records",provider="builtin"} 2
`

func TestMetricTotalMatchesNameAndLabelsExactly(t *testing.T) {
	if v := metricTotal(scrapeBefore, "external_dns_registry_endpoints_total"); v != 2e6 {
		t.Errorf("unlabelled gauge: %v, want 2e6 (and not the _extra series)", v)
	}
	if v := metricTotal(scrapeBefore, "zonekeeper_provider_call_duration_seconds_count"); v != 3 {
		t.Errorf("all operations: %v, want 3", v)
	}
	if v := metricTotal(scrapeBefore, "zonekeeper_provider_call_duration_seconds_count", `operation="records"`); v != 2 {
		t.Errorf("Records: %v, want 2", v)
	}
	if v := metricTotal(scrapeBefore, "zonekeeper_provider_call_duration_seconds_count", `operation="record"`); v != 0 {
		t.Errorf("a label value's prefix matched: %v", v)
	}
}

func TestHistogramMeanIsOfTheNewObservations(t *testing.T) {
	mean, n := histogramMean(scrapeBefore, scrapeAfter, "zonekeeper_provider_call_duration_seconds", `operation="apply_changes"`)
	if n != 4 || mean != 250*time.Millisecond {
		t.Errorf("ApplyChanges: %d calls, mean %s; want 4 calls of 250ms", n, mean)
	}
	if _, n := histogramMean(scrapeBefore, scrapeAfter, "zonekeeper_provider_call_duration_seconds", `operation="records"`); n != 0 {
		t.Errorf("Records made no new call, got %d", n)
	}
}

func TestLiveHeapIsTheGCGoalLessGOGC(t *testing.T) {
	if v := liveHeap("go_gc_gogc_percent 100\ngo_memstats_next_gc_bytes 1.2e+10\n"); v != 6e9 {
		t.Errorf("GOGC 100, goal 12 GB: live %d, want 6 GB", v)
	}
	if v := liveHeap("go_gc_gogc_percent 50\ngo_memstats_next_gc_bytes 3e+09\n"); v != 2e9 {
		t.Errorf("GOGC 50, goal 3 GB: live %d, want 2 GB", v)
	}
	if v := liveHeap("go_memstats_next_gc_bytes 3e+09\n"); v != 0 {
		t.Errorf("no GOGC figure: %d", v)
	}
}
