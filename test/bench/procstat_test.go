package bench

import (
	"os"
	"testing"
	"time"
)

func TestParseStatusKB(t *testing.T) {
	status := []byte("Name:\tzonekeeper\nVmPeak:\t  900 kB\nVmRSS:\t   51234 kB\nRssAnon:\t 1200 kB\nRssFile:\t 50034 kB\n")
	for field, want := range map[string]int64{"VmRSS": 51234 * 1024, "RssAnon": 1200 * 1024} {
		if got, err := parseStatusKB(status, field); err != nil || got != want {
			t.Errorf("%s: got %d, %v; want %d", field, got, err, want)
		}
	}
	for _, bad := range []string{"Name:\tx\n", "VmRSS:\t12 MB\n", "VmRSS:\tlots kB\n"} {
		if _, err := parseStatusKB([]byte(bad), "VmRSS"); err == nil {
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
	anon, err := anonymousBytes(pid)
	if err != nil || anon < 1<<20 || anon > rss {
		t.Fatalf("anonymous resident bytes of this test process: %d, %v (VmRSS %d)", anon, err, rss)
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
