package bench

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// toolResult is what one tool did at one N.
type toolResult struct {
	// Tool is "external-dns" or "zonekeeper"; Version what its binary says.
	Tool, Version string
	// Converge is from starting the process to the provider call that completed the zone.
	Converge time.Duration
	// Sets is how many record sets (SOA and NS left out) the zone held then.
	Sets int
	// ConvergeCalls are the emulator's calls per operation from start to converged.
	ConvergeCalls map[string]int
	// RSSConverged and RSSIdle are VmRSS at converging and at the end of the idle window.
	RSSConverged, RSSIdle int64
	// AnonConverged and AnonIdle are the anonymous part of it (RssAnon), the process's own memory.
	AnonConverged, AnonIdle int64
	// IdleCPU is the CPU time used over the idle window; IdleCalls the calls made in it.
	IdleCPU   time.Duration
	IdleCalls map[string]int
	// Latencies are the event-to-answer times of the changes, in the order made.
	Latencies []time.Duration
	// ChangeCalls are the calls made from the first change to the last answer.
	ChangeCalls map[string]int
	// LoadMean and LoadMax are the machine's one-minute load average while the tool ran.
	LoadMean, LoadMax float64
}

// sideBySide is one table: every tool at one N.
type sideBySide struct {
	N       int
	Idle    time.Duration
	Changes int
	Results []toolResult
}

// percentile is the nearest-rank p-th percentile (0 < p ≤ 100) of samples, which it does not modify.
func percentile(samples []time.Duration, p float64) time.Duration {
	if len(samples) == 0 {
		return 0
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	return s[max(rank, 1)-1]
}

func sumCalls(calls map[string]int) int {
	n := 0
	for _, v := range calls {
		n += v
	}
	return n
}

// markdown renders the table, one column per tool.
func (t sideBySide) markdown() string {
	var b strings.Builder
	idle := "idle window " + t.Idle.String()
	if t.Idle < issueIdle {
		idle += fmt.Sprintf(", shorter than the issue's %s: per-minute and per-hour figures are extrapolated from it", issueIdle)
	}
	fmt.Fprintf(&b, "N = %s Ingresses (%s)\n\n", thousands(t.N), idle)
	row := func(label string, cell func(r toolResult) string) {
		b.WriteString("| " + label)
		for _, r := range t.Results {
			b.WriteString(" | " + cell(r))
		}
		b.WriteString(" |\n")
	}
	row("", func(r toolResult) string { return r.Tool + " " + r.Version })
	b.WriteString("|---" + strings.Repeat("|---:", len(t.Results)) + "|\n")
	row(fmt.Sprintf("time to converge (all %s A records in the emulator)", thousands(t.N)), func(r toolResult) string { return human(r.Converge) })
	row("record sets in the zone then (SOA and NS left out)", func(r toolResult) string { return thousands(r.Sets) })
	row("RSS after converging", func(r toolResult) string { return megabytes(r.RSSConverged) })
	row("RSS after the idle window", func(r toolResult) string { return megabytes(r.RSSIdle) })
	row("of which anonymous (RssAnon: heap, stacks; the rest is the binary's pages), converged → idle", func(r toolResult) string {
		return megabytes(r.AnonConverged) + " → " + megabytes(r.AnonIdle)
	})
	row("CPU-seconds per idle minute", func(r toolResult) string {
		return fmt.Sprintf("%.3f", r.IdleCPU.Seconds()*float64(time.Minute)/float64(t.Idle))
	})
	row(fmt.Sprintf("event to answer, median / p95 / max over %d changes", t.Changes), func(r toolResult) string {
		if len(r.Latencies) == 0 {
			return "–"
		}
		return human(percentile(r.Latencies, 50)) + " / " + human(percentile(r.Latencies, 95)) + " / " + human(percentile(r.Latencies, 100))
	})
	row("provider calls to converge", func(r toolResult) string { return calls(r.ConvergeCalls, 1) })
	row(fmt.Sprintf("provider calls per change (all calls during the %d changes / %d)", t.Changes, t.Changes), func(r toolResult) string {
		return calls(r.ChangeCalls, 1/float64(t.Changes))
	})
	row("provider calls per idle hour (extrapolated from the idle window)", func(r toolResult) string {
		return calls(r.IdleCalls, float64(time.Hour)/float64(t.Idle))
	})
	row("load average (1 min) while the tool ran, mean / max", func(r toolResult) string {
		return fmt.Sprintf("%.2f / %.2f", r.LoadMean, r.LoadMax)
	})
	return b.String()
}

// calls renders a call count scaled by factor: the total, then each operation, most frequent first.
func calls(byOp map[string]int, factor float64) string {
	ops := make([]string, 0, len(byOp))
	for op, n := range byOp {
		if n > 0 {
			ops = append(ops, op)
		}
	}
	slices.SortFunc(ops, func(a, b string) int {
		if byOp[a] != byOp[b] {
			return byOp[b] - byOp[a]
		}
		return strings.Compare(a, b)
	})
	num := func(n int) string {
		v := float64(n) * factor
		if factor < 1 { // a mean per change: a fraction says something
			return fmt.Sprintf("%.1f", v)
		}
		return thousands(int(math.Round(v)))
	}
	out := num(sumCalls(byOp))
	if len(ops) == 0 {
		return out
	}
	parts := make([]string, len(ops))
	for i, op := range ops {
		parts[i] = shortOp(op) + " " + num(byOp[op])
	}
	return out + " (" + strings.Join(parts, ", ") + ")"
}

// shortOp names the Route 53 operations in few letters, so that a table cell stays readable.
func shortOp(op string) string {
	switch op {
	case "ListResourceRecordSets":
		return "list"
	case "ChangeResourceRecordSets":
		return "change"
	case "ListHostedZones":
		return "zones"
	case "GetChange":
		return "get-change"
	}
	return op
}

// human renders a duration to a precision that suits its size.
func human(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Round(time.Millisecond).Milliseconds())
	case d < 100*time.Second:
		return fmt.Sprintf("%.1f s", d.Seconds())
	default:
		return d.Round(time.Second).String()
	}
}

func megabytes(b int64) string { return fmt.Sprintf("%d MB", (b+(1<<19))>>20) }

func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
