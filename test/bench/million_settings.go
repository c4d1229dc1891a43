package bench

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// millionSettings are what one run of TestMillion measures, read from MIL_* environment variables
// that `make bench-million` sets from its make variables (OBJECTS, HOSTS, ...). A million endpoints
// are not a million objects: Objects Ingresses with Hosts host rules each, so that the endpoints fit
// one etcd of the testbed.
type millionSettings struct {
	// Objects is the number of Ingresses (MIL_OBJECTS, e.g. "10k"); Hosts the host rules of each
	// (MIL_HOSTS). Objects × Hosts is the number of endpoints (A records).
	Objects, Hosts int
	// Idle is the quiet window after converging over which CPU and memory are taken (MIL_IDLE); it
	// should hold at least one --interval resync (1m by default).
	Idle time.Duration
	// Changes is how many status-IP changes the event-to-answer figures are taken over (MIL_CHANGES);
	// ChangeGap the pause between one change being answered and the next (MIL_CHANGE_GAP).
	Changes   int
	ChangeGap time.Duration
	// ConvergeTimeout and ChangeTimeout bound the waits (MIL_CONVERGE_TIMEOUT, MIL_CHANGE_TIMEOUT).
	ConvergeTimeout, ChangeTimeout time.Duration
	// Zonekeeper is the binary to run; empty builds ./cmd/zonekeeper (MIL_ZONEKEEPER).
	Zonekeeper string
	// Args are flags added to zonekeeper's command line, space-separated (MIL_ARGS), e.g.
	// "--interval=10m" to keep resyncs out of the changes; the table names them.
	Args []string
	// Out is a file the table is appended to, as Markdown, besides standard output (MIL_OUT).
	Out string
}

func defaultMillionSettings() millionSettings {
	return millionSettings{
		Objects:         10000,
		Hosts:           100,
		Idle:            2 * time.Minute,
		Changes:         50,
		ChangeGap:       2 * time.Second,
		ConvergeTimeout: 60 * time.Minute,
		ChangeTimeout:   5 * time.Minute,
	}
}

// Endpoints is the number of names the run publishes.
func (s millionSettings) Endpoints() int { return s.Objects * s.Hosts }

// millionHostLimit bounds Hosts: Ingress host rules are numbered with three digits.
const millionHostLimit = 1000

// millionSettingsFrom reads the MIL_* variables through getenv; an unset or empty variable keeps its
// default, a malformed one is an error naming it.
func millionSettingsFrom(getenv func(string) string) (millionSettings, error) {
	s := defaultMillionSettings()
	if v := getenv("MIL_OBJECTS"); v != "" {
		n, err := parseCounts(v)
		if err != nil || len(n) != 1 {
			return s, fmt.Errorf("MIL_OBJECTS (make OBJECTS=): want one number of Ingresses such as 10k, got %q", v)
		}
		s.Objects = n[0]
	}
	if v := getenv("MIL_HOSTS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > millionHostLimit {
			return s, fmt.Errorf("MIL_HOSTS (make HOSTS=): want host rules per Ingress from 1 to %d, got %q", millionHostLimit, v)
		}
		s.Hosts = n
	}
	durations := []struct {
		name     string
		dst      *time.Duration
		positive bool
	}{
		{"MIL_IDLE", &s.Idle, true},
		{"MIL_CHANGE_GAP", &s.ChangeGap, false},
		{"MIL_CONVERGE_TIMEOUT", &s.ConvergeTimeout, true},
		{"MIL_CHANGE_TIMEOUT", &s.ChangeTimeout, true},
	}
	for _, d := range durations {
		v := getenv(d.name)
		if v == "" {
			continue
		}
		var err error
		if *d.dst, err = time.ParseDuration(v); err != nil || *d.dst < 0 || (d.positive && *d.dst == 0) {
			return s, fmt.Errorf("%s: want a Go duration such as 2m or 90s (greater than zero for this one), got %q", d.name, v)
		}
	}
	if v := getenv("MIL_CHANGES"); v != "" {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 2 {
			return s, fmt.Errorf("MIL_CHANGES (make CHANGES=): want a whole number of at least 2 (a median and a p95 need samples), got %q", v)
		}
		s.Changes = n
	}
	if s.Objects < s.Changes {
		return s, fmt.Errorf("MIL_OBJECTS: %d Ingresses are fewer than the %d changes of MIL_CHANGES (each change is on another Ingress)", s.Objects, s.Changes)
	}
	if s.Objects > 1<<24 {
		return s, fmt.Errorf("MIL_OBJECTS: %d Ingresses, but each needs its own status address in 10.0.0.0/8 (at most %d)", s.Objects, 1<<24)
	}
	s.Zonekeeper = getenv("MIL_ZONEKEEPER")
	for _, a := range strings.Fields(getenv("MIL_ARGS")) {
		if !strings.HasPrefix(a, "--") {
			return s, fmt.Errorf("MIL_ARGS (make ZK_ARGS=): %q is not a --flag; want flags such as --interval=10m, space-separated", a)
		}
		s.Args = append(s.Args, a)
	}
	s.Out = getenv("MIL_OUT")
	return s, nil
}
