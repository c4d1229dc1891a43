package bench

import (
	"strings"
	"testing"
	"time"
)

func TestPercentileIsNearestRank(t *testing.T) {
	var s []time.Duration
	for i := 50; i >= 1; i-- { // unsorted on purpose
		s = append(s, time.Duration(i)*time.Millisecond)
	}
	if got := percentile(s, 50); got != 25*time.Millisecond {
		t.Errorf("median of 1..50 ms: %v", got)
	}
	if got := percentile(s, 95); got != 48*time.Millisecond {
		t.Errorf("p95 of 1..50 ms: %v", got)
	}
	if got := percentile(s, 100); got != 50*time.Millisecond {
		t.Errorf("max of 1..50 ms: %v", got)
	}
	if s[0] != 50*time.Millisecond {
		t.Error("percentile sorted its input")
	}
}

func TestTableSaysAShortIdleWindowAndScalesCalls(t *testing.T) {
	tb := sideBySide{N: 20000, Idle: 2 * time.Minute, Changes: 50, Results: []toolResult{{
		Tool: "external-dns", Version: "v0.23.0", Converge: 83 * time.Second, Sets: 40000,
		ConvergeCalls: map[string]int{"ListResourceRecordSets": 1, "ChangeResourceRecordSets": 40, "ListHostedZones": 1},
		RSSConverged:  300 << 20, RSSIdle: 310 << 20, AnonConverged: 220 << 20, AnonIdle: 230 << 20, IdleCPU: 3 * time.Second,
		IdleCalls:   map[string]int{"ListResourceRecordSets": 268, "ListHostedZones": 2},
		Latencies:   []time.Duration{5 * time.Second, 6 * time.Second},
		ChangeCalls: map[string]int{"ListResourceRecordSets": 6700, "ChangeResourceRecordSets": 50},
	}}}
	md := tb.markdown()
	for _, want := range []string{
		"N = 20,000 Ingresses (idle window 2m0s, shorter than the issue's 10m0s",
		"| external-dns v0.23.0 |",
		"| 83.0 s |", "| 40,000 |", "| 300 MB |", "| 310 MB |", "| 220 MB → 230 MB |",
		"| 1.500 |",                           // 3 CPU-s over 2 min
		"| 42 (change 40, zones 1, list 1) |", // converge, unscaled
		"| 135.0 (list 134.0, change 1.0) |",  // 6,750 calls over 50 changes
		"| 8,100 (list 8,040, zones 60) |",    // 270 calls in 2 min, times 30
		"| 5.0 s / 6.0 s / 6.0 s |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("table lacks %q:\n%s", want, md)
		}
	}
	tb.Idle = 10 * time.Minute
	if strings.Contains(tb.markdown(), "shorter") {
		t.Error("a 10-minute idle window is called shorter than the issue's")
	}
}

func TestHumanAndThousands(t *testing.T) {
	for d, want := range map[time.Duration]string{
		212 * time.Millisecond: "212 ms", 4100 * time.Millisecond: "4.1 s", 252 * time.Second: "4m12s",
	} {
		if got := human(d); got != want {
			t.Errorf("human(%v) = %q, want %q", d, got, want)
		}
	}
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 100000: "100,000", 1234567: "1,234,567"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
