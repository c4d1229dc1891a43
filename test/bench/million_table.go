package bench

import (
	"fmt"
	"strings"
	"time"
)

// millionResult is what one TestMillion run measured.
type millionResult struct {
	Objects, Hosts int
	// Args are the flags added to zonekeeper's defaults besides the provider's.
	Args []string
	// Load is the time to create the Ingresses with their status in the apiserver.
	Load time.Duration
	// Serving is from starting zonekeeper to its DNS server's first SOA answer.
	Serving time.Duration
	// Converge is from starting zonekeeper to the first sighting of the serial under which every name
	// was answered; ConvergeExact is false when that is an upper bound (the serial moved during the
	// last check). Batches is how many serials the server moved through until then.
	Converge      time.Duration
	ConvergeExact bool
	Batches       int
	// ConvergeCPU is the CPU time zonekeeper had used then; RSS and Anon its VmRSS and RssAnon then.
	ConvergeCPU                  time.Duration
	RSSConverged, AnonConverged  int64
	RSSIdle, AnonIdle            int64
	RSSAfter, AnonAfter, PeakRSS int64
	// LiveIdle and LiveAfter are the Go heap that survived the last collection (liveHeap) at the end
	// of the idle window and after the changes: what RSS would shrink to with no headroom.
	LiveIdle, LiveAfter               int64
	Idle, IdleCPU                     time.Duration
	IdleRecords                       int
	IdleRecordsMean                   time.Duration
	Latencies                         []time.Duration
	ApplyMean, EventReconcileMean     time.Duration
	ApplyCalls                        int
	LoadStart                         string
	LoadMean, LoadMax                 float64
	ConvergeLoadMean, ConvergeLoadMax float64
}

// markdown renders the run as one two-column table.
func (r millionResult) markdown() string {
	var b strings.Builder
	n := r.Objects * r.Hosts
	flags := strings.Join(append([]string{"--provider=builtin"}, r.Args...), " ")
	fmt.Fprintf(&b, "%s endpoints: %s Ingresses × %d host rules, zonekeeper %s (load average at start %s)\n\n",
		thousands(n), thousands(r.Objects), r.Hosts, flags, r.LoadStart)
	b.WriteString("| | |\n|---|---:|\n")
	row := func(label, value string) { fmt.Fprintf(&b, "| %s | %s |\n", label, value) }
	row(fmt.Sprintf("loading the %s Ingresses with their status (48 clients)", thousands(r.Objects)), human(r.Load))
	row("start to the DNS server's first answer", human(r.Serving))
	exact := ""
	if !r.ConvergeExact {
		exact = " (at most: the zone moved during the last check)"
	}
	row(fmt.Sprintf("time to converge (all %s names answered with their address)", thousands(n)), human(r.Converge)+exact)
	row("batches (SOA serials) until then", thousands(r.Batches))
	row("CPU until converged (cores busy on average)", fmt.Sprintf("%s (%.2f)", human(r.ConvergeCPU), r.ConvergeCPU.Seconds()/max(r.Converge.Seconds(), 1e-9)))
	row("load average (1 min) while converging, mean / max", fmt.Sprintf("%.2f / %.2f", r.ConvergeLoadMean, r.ConvergeLoadMax))
	row("RSS after converging (anonymous)", megabytes(r.RSSConverged)+" ("+megabytes(r.AnonConverged)+")")
	row(fmt.Sprintf("RSS after a %s idle window (anonymous)", r.Idle), megabytes(r.RSSIdle)+" ("+megabytes(r.AnonIdle)+")")
	row("of which live Go heap at the last GC (GC goal / (1 + GOGC/100), from /metrics)", megabytes(r.LiveIdle))
	row("CPU-seconds per idle minute", fmt.Sprintf("%.2f", r.IdleCPU.Seconds()*float64(time.Minute)/float64(r.Idle)))
	records := "–"
	if r.IdleRecords > 0 {
		records = fmt.Sprintf("%d, mean %s", r.IdleRecords, human(r.IdleRecordsMean))
	}
	row("provider listings (Records) in the idle window", records)
	if len(r.Latencies) > 0 {
		row(fmt.Sprintf("event to answer, median / p95 / max over %d status-IP changes", len(r.Latencies)),
			human(percentile(r.Latencies, 50))+" / "+human(percentile(r.Latencies, 95))+" / "+human(percentile(r.Latencies, 100)))
		row("of which the provider write (ApplyChanges, mean of calls) / the event reconcile (mean)",
			fmt.Sprintf("%s (%d calls) / %s", human(r.ApplyMean), r.ApplyCalls, human(r.EventReconcileMean)))
	}
	row("RSS after the changes (anonymous)", megabytes(r.RSSAfter)+" ("+megabytes(r.AnonAfter)+")")
	row("of which live Go heap at the last GC", megabytes(r.LiveAfter))
	row("peak RSS (VmHWM)", megabytes(r.PeakRSS))
	row("load average (1 min) over the whole run, mean / max", fmt.Sprintf("%.2f / %.2f", r.LoadMean, r.LoadMax))
	return b.String()
}
