package emucontrol

import (
	"testing"
	"time"
)

type testFault struct {
	Op    string
	Count int
	Left  time.Duration
}

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func matchOp(op string) func(*testFault) bool {
	return func(f *testFault) bool { return f.Op == "" || f.Op == op }
}

func TestFaultListCountsDownAndThenLetsRequestsThrough(t *testing.T) {
	var l FaultList[testFault]
	l.Add(testFault{Op: "list", Count: 2}, 2, t0, 0)
	for i := range 2 {
		if _, ok := l.Fire(t0, matchOp("list")); !ok {
			t.Fatalf("request %d: fault with count 2 did not fire", i+1)
		}
	}
	if f, ok := l.Fire(t0, matchOp("list")); ok {
		t.Fatalf("third request: fault with count 2 fired again: %+v", f)
	}
	if got := l.List(t0, func(*testFault, int, time.Duration) {}); len(got) != 0 {
		t.Fatalf("used-up fault still listed: %+v", got)
	}
}

func TestFaultListFiresFirstMatchInOrderAdded(t *testing.T) {
	var l FaultList[testFault]
	l.Add(testFault{Op: "get"}, 0, t0, 0)
	l.Add(testFault{Op: "list"}, 1, t0, 0)
	l.Add(testFault{Op: ""}, 0, t0, 0)
	if f, _ := l.Fire(t0, matchOp("list")); f.Op != "list" {
		t.Fatalf("list request fired %+v, want the first fault for list", f)
	}
	if f, _ := l.Fire(t0, matchOp("list")); f.Op != "" {
		t.Fatalf("second list request fired %+v, want the catch-all once the counted one is used up", f)
	}
	if f, _ := l.Fire(t0, matchOp("get")); f.Op != "get" {
		t.Fatalf("get request fired %+v", f)
	}
}

func TestFaultListDeadline(t *testing.T) {
	var l FaultList[testFault]
	l.Add(testFault{}, 0, t0, 30*time.Second)
	got := l.List(t0.Add(10*time.Second), func(f *testFault, _ int, remaining time.Duration) { f.Left = remaining })
	if len(got) != 1 || got[0].Left != 20*time.Second {
		t.Fatalf("after 10s of a 30s fault: %+v, want 20s left", got)
	}
	if _, ok := l.Fire(t0.Add(29*time.Second), matchOp("x")); !ok {
		t.Fatal("fault did not fire before its deadline")
	}
	if _, ok := l.Fire(t0.Add(30*time.Second), matchOp("x")); ok {
		t.Fatal("fault fired at its deadline")
	}
}

func TestFaultListListsRequestsLeftAndNeverNil(t *testing.T) {
	var l FaultList[testFault]
	if got := l.List(t0, func(*testFault, int, time.Duration) {}); got == nil {
		t.Fatal("empty list is nil; the control API would send null instead of []")
	}
	l.Add(testFault{Count: 3}, 3, t0, 0)
	l.Add(testFault{}, 0, t0, 0)
	l.Fire(t0, matchOp("x"))
	got := l.List(t0, func(f *testFault, left int, _ time.Duration) { f.Count = left })
	if len(got) != 2 || got[0].Count != 2 || got[1].Count != 0 {
		t.Fatalf("listed %+v, want counts 2 (3 minus one fired) and 0 (no limit)", got)
	}
	l.Clear()
	if _, ok := l.Fire(t0, matchOp("x")); ok {
		t.Fatal("fault fired after Clear")
	}
}
