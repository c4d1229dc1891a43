package bench

import (
	"os"
	"testing"
	"time"
)

func TestParseVmRSS(t *testing.T) {
	got, err := parseVmRSS([]byte("Name:\tzonekeeper\nVmPeak:\t  900 kB\nVmRSS:\t   51234 kB\nRssAnon:\t 1 kB\n"))
	if err != nil || got != 51234*1024 {
		t.Fatalf("got %d, %v; want %d", got, err, 51234*1024)
	}
	for _, bad := range []string{"Name:\tx\n", "VmRSS:\t12 MB\n", "VmRSS:\tlots kB\n"} {
		if _, err := parseVmRSS([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestParseStatCPU(t *testing.T) {
	// A command name with spaces and a ')' must not shift the fields; utime 250 + stime 75 ticks.
	line := "4242 (external dns) x) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 75 0 0 20 0 12 0 1000 0 0\n"
	got, err := parseStatCPU([]byte(line))
	if err != nil || got != 3250*time.Millisecond {
		t.Fatalf("got %v, %v; want 3.25s", got, err)
	}
	if _, err := parseStatCPU([]byte("4242 (short) S 1 2")); err == nil {
		t.Error("a truncated stat line gave no error")
	}
}

// The readers on this very process: memory is resident, and CPU time grows while it spins.
func TestProcReadersOnThisProcess(t *testing.T) {
	pid := os.Getpid()
	rss, err := residentBytes(pid)
	if err != nil || rss < 1<<20 {
		t.Fatalf("resident bytes of this test process: %d, %v", rss, err)
	}
	before, err := cpuTime(pid)
	if err != nil {
		t.Fatal(err)
	}
	x := 0
	for end := time.Now().Add(150 * time.Millisecond); time.Now().Before(end); {
		x++
	}
	after, err := cpuTime(pid)
	if err != nil {
		t.Fatal(err)
	}
	if after <= before {
		t.Errorf("CPU time did not grow over 150 ms of spinning (%d loops): %v then %v", x, before, after)
	}
	if _, err := loadAverage1(); err != nil {
		t.Error(err)
	}
}
