package emucontrol

import "testing"

func TestCallLogCounts(t *testing.T) {
	var l CallLog[string]
	if c := l.Counters(); c.Calls == nil || c.Errors == nil {
		t.Fatal("empty counters have nil maps; the control API would send null")
	}
	l.Add("a", "list", 200, "")
	l.Add("b", "list", 429, "Throttling")
	l.Add("c", "get", 500, "Internal")
	c := l.Counters()
	if c.Calls["list"] != 2 || c.Calls["get"] != 1 || c.Errors["list:Throttling"] != 1 || c.Errors["get:Internal"] != 1 ||
		len(c.Errors) != 2 || c.Throttled != 1 || c.Total != 3 {
		t.Fatalf("counters %+v", c)
	}
	c.Calls["list"] = 99
	if l.Counters().Calls["list"] != 2 {
		t.Fatal("Counters returned the log's own map")
	}
	if got := l.Calls(); len(got) != 3 || got[0] != "a" || got[2] != "c" {
		t.Fatalf("calls %v", got)
	}
	l.Clear()
	if len(l.Calls()) != 0 || l.Counters().Total != 0 {
		t.Fatal("Clear kept calls or counters")
	}
}

func TestCallLogDropsOldestBeyondMaxCalls(t *testing.T) {
	var l CallLog[int]
	for i := range MaxCalls + 5 {
		l.Add(i, "op", 200, "")
	}
	got := l.Calls()
	if len(got) != MaxCalls || got[0] != 5 || got[len(got)-1] != MaxCalls+4 {
		t.Fatalf("log holds %d calls from %d to %d; want the last %d", len(got), got[0], got[len(got)-1], MaxCalls)
	}
	if l.Counters().Calls["op"] != MaxCalls+5 {
		t.Fatal("counters should count every call, not only the ones kept")
	}
}

func TestCallLogThrottleDecidesWhatCountsAsThrottled(t *testing.T) {
	l := CallLog[string]{Throttle: func(_ int, code string) bool { return code == "Throttling" }}
	l.Add("a", "list", 400, "Throttling")
	l.Add("b", "list", 429, "TooMany")
	if c := l.Counters(); c.Throttled != 1 || c.Total != 2 {
		t.Fatalf("counters %+v: want the 400 Throttling counted and the 429 not, as Throttle says", c)
	}
}
