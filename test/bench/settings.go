package bench

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// settings are what one run of the harness measures, read from SBS_* environment variables that
// `make bench-side-by-side` sets from its make variables (N, IDLE, CHANGES, ...).
type settings struct {
	// Counts are the numbers of Ingresses, one table each (SBS_N, e.g. "1k,20k,100k").
	Counts []int
	// Idle is the quiet window after converging over which CPU, calls and memory are taken (SBS_IDLE).
	Idle time.Duration
	// Settle is waited after converging before the idle window starts (SBS_SETTLE).
	Settle time.Duration
	// Changes is how many status-IP changes the event-to-answer figures are taken over (SBS_CHANGES).
	Changes int
	// ChangeGap is the pause between one change being answered and the next (SBS_CHANGE_GAP). The
	// default, 6 s, is longer than external-dns's --min-event-sync-interval (5 s), so that each change
	// is a lone event for both tools rather than one queued behind the previous sync.
	ChangeGap time.Duration
	// ConvergeTimeout and ChangeTimeout bound the waits; passing one fails the run with a message
	// naming the tool and how far it got (SBS_CONVERGE_TIMEOUT, SBS_CHANGE_TIMEOUT).
	ConvergeTimeout, ChangeTimeout time.Duration
	// Tools are the tools run, in order: "external-dns", "zonekeeper" (SBS_TOOLS).
	Tools []string
	// ExternalDNSVersion picks the testbed's external-dns-<version> binary (SBS_EXTERNAL_DNS).
	ExternalDNSVersion string
	// Zonekeeper is the binary to run; empty builds ./cmd/zonekeeper into a temporary directory
	// (SBS_ZONEKEEPER).
	Zonekeeper string
	// Out is a file the tables are appended to, as Markdown, besides standard output (SBS_OUT).
	Out string
}

// issueIdle is the idle window issue 15 asks for; a shorter one is said in the table.
const issueIdle = 10 * time.Minute

func defaultSettings() settings {
	return settings{
		Counts:             []int{1000, 20000, 100000},
		Idle:               issueIdle,
		Settle:             10 * time.Second,
		Changes:            50,
		ChangeGap:          6 * time.Second,
		ConvergeTimeout:    60 * time.Minute,
		ChangeTimeout:      5 * time.Minute,
		Tools:              []string{"external-dns", "zonekeeper"},
		ExternalDNSVersion: "v0.23.0",
	}
}

// settingsFrom reads the SBS_* variables through getenv; an unset or empty variable keeps its default,
// a malformed one is an error naming it.
func settingsFrom(getenv func(string) string) (settings, error) {
	s := defaultSettings()
	var err error
	if v := getenv("SBS_N"); v != "" {
		if s.Counts, err = parseCounts(v); err != nil {
			return s, fmt.Errorf("SBS_N (make N=): %v", err)
		}
	}
	durations := []struct {
		name     string
		dst      *time.Duration
		positive bool
	}{
		{"SBS_IDLE", &s.Idle, true},
		{"SBS_SETTLE", &s.Settle, false},
		{"SBS_CHANGE_GAP", &s.ChangeGap, false},
		{"SBS_CONVERGE_TIMEOUT", &s.ConvergeTimeout, true},
		{"SBS_CHANGE_TIMEOUT", &s.ChangeTimeout, true},
	}
	for _, d := range durations {
		v := getenv(d.name)
		if v == "" {
			continue
		}
		if *d.dst, err = time.ParseDuration(v); err != nil || *d.dst < 0 || (d.positive && *d.dst == 0) {
			return s, fmt.Errorf("%s: want a Go duration such as 2m or 90s (greater than zero for this one), got %q", d.name, v)
		}
	}
	if v := getenv("SBS_CHANGES"); v != "" {
		if s.Changes, err = strconv.Atoi(v); err != nil || s.Changes < 2 {
			return s, fmt.Errorf("SBS_CHANGES (make CHANGES=): want a whole number of at least 2 (a median and a p95 need samples), got %q", v)
		}
	}
	if v := getenv("SBS_TOOLS"); v != "" {
		s.Tools = nil
		for _, tool := range strings.Split(v, ",") {
			tool = strings.TrimSpace(tool)
			if tool != "external-dns" && tool != "zonekeeper" {
				return s, fmt.Errorf("SBS_TOOLS (make TOOLS=): %q is not a tool; want external-dns, zonekeeper or both, comma-separated", tool)
			}
			s.Tools = append(s.Tools, tool)
		}
	}
	if v := getenv("SBS_EXTERNAL_DNS"); v != "" {
		s.ExternalDNSVersion = v
	}
	s.Zonekeeper = getenv("SBS_ZONEKEEPER")
	s.Out = getenv("SBS_OUT")
	for _, n := range s.Counts {
		if n < s.Changes {
			return s, fmt.Errorf("SBS_N: %d Ingresses are fewer than the %d changes of SBS_CHANGES (each change is on another Ingress)", n, s.Changes)
		}
	}
	return s, nil
}

// parseCounts reads "1000,20k,100k": whole numbers, "k" for thousands.
func parseCounts(v string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(v, ",") {
		f = strings.TrimSpace(f)
		mult := 1
		if s, ok := strings.CutSuffix(strings.ToLower(f), "k"); ok {
			f, mult = s, 1000
		}
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("want numbers of Ingresses such as 1k,20k,100k, got %q", v)
		}
		out = append(out, n*mult)
	}
	return out, nil
}
