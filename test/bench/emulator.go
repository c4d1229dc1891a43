package bench

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

// watchedEmulator is the Route 53 emulator on loopback, serving one zone, with a note of when each
// successful ChangeResourceRecordSets returned: the moment the tool that sent it had its answer, so the
// moment Route 53 held the new records. Times are taken from those notes, not from when the harness
// happened to look, so how often it looks does not change the figures.
type watchedEmulator struct {
	srv      *route53emu.Server
	http     *httptest.Server
	zoneID   string
	zoneName string

	// inflight counts change calls being served: one may already be applied but not yet answered.
	inflight atomic.Int64

	mu sync.Mutex
	// lastChange is when the latest successful change call returned, callsThen the call counters then.
	lastChange time.Time
	callsThen  map[string]int
	// changed is closed when the next change call returns.
	changed chan struct{}
}

// startEmulator serves an emulator without a rate limit and with changes in sync at once (the
// harness measures the tools, not AWS's quota) holding one empty public zone.
func startEmulator(zoneID, zoneName string) (*watchedEmulator, error) {
	e := &watchedEmulator{srv: route53emu.New(route53emu.Options{}), zoneID: zoneID, zoneName: zoneName}
	e.http = httptest.NewServer(http.HandlerFunc(e.serve))
	if err := e.wipe(); err != nil {
		e.http.Close()
		return nil, err
	}
	return e, nil
}

// URL is the endpoint the tools' AWS SDKs are pointed at (AWS_ENDPOINT_URL_ROUTE_53).
func (e *watchedEmulator) URL() string { return e.http.URL }

func (e *watchedEmulator) Close() { e.http.Close() }

// wipe empties the emulator, calls and counters included, and creates the zone again under the same id.
func (e *watchedEmulator) wipe() error {
	e.srv.Reset()
	if _, err := e.srv.Seed(route53emu.Seed{Zones: []route53emu.SeedZone{{ID: e.zoneID, Name: e.zoneName}}}); err != nil {
		return fmt.Errorf("route53 emulator: creating zone %s: %v", e.zoneName, err)
	}
	e.mu.Lock()
	e.lastChange, e.callsThen, e.changed = time.Time{}, map[string]int{}, make(chan struct{})
	e.mu.Unlock()
	return nil
}

// statusRecorder keeps the status a handler wrote.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(status int) {
	r.status = status
	r.ResponseWriter.WriteHeader(status)
}

func (e *watchedEmulator) serve(w http.ResponseWriter, r *http.Request) {
	isChange := r.Method == http.MethodPost && strings.HasSuffix(strings.TrimSuffix(r.URL.Path, "/"), "/rrset")
	if !isChange {
		e.srv.ServeHTTP(w, r)
		return
	}
	e.inflight.Add(1)
	defer e.inflight.Add(-1)
	rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
	e.srv.ServeHTTP(rec, r)
	if rec.status != http.StatusOK {
		return
	}
	now, counters := time.Now(), e.srv.Counters().Calls
	e.mu.Lock()
	e.lastChange, e.callsThen = now, counters
	close(e.changed)
	e.changed = make(chan struct{})
	e.mu.Unlock()
}

// calls are the emulator's call counters per operation since the last wipe.
func (e *watchedEmulator) calls() map[string]int { return e.srv.Counters().Calls }

// sets are the zone's record sets, SOA and NS left out.
func (e *watchedEmulator) sets() []route53emu.RecordSet {
	var out []route53emu.RecordSet
	for _, z := range e.srv.Dump() {
		if z.ID != e.zoneID {
			continue
		}
		for _, rs := range z.Records {
			if rs.Type != "SOA" && rs.Type != "NS" {
				out = append(out, rs)
			}
		}
	}
	return out
}

// await looks at the zone after every completed change (and every second regardless) until holds says
// it holds, and returns when the change call that made it hold returned, with the call counters then.
// It gives up with an error when timeout passes (saying how far holds got), ctx ends, or alive
// reports the tool gone.
func (e *watchedEmulator) await(ctx context.Context, timeout time.Duration, alive func() error, holds func([]route53emu.RecordSet) (bool, string)) (time.Time, map[string]int, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		e.mu.Lock()
		changed := e.changed
		e.mu.Unlock()
		lookStart := time.Now()
		ok, progress := holds(e.sets())
		if ok {
			// The change that completed the zone may be applied and not yet answered.
			for e.inflight.Load() > 0 && time.Since(lookStart) < 30*time.Second {
				time.Sleep(time.Millisecond)
			}
			e.mu.Lock()
			at, calls := e.lastChange, maps.Clone(e.callsThen)
			e.mu.Unlock()
			if at.IsZero() {
				return at, calls, fmt.Errorf("the zone holds it, but no change call was made since the zone was wiped")
			}
			return at, calls, nil
		}
		if err := alive(); err != nil {
			return time.Time{}, nil, err
		}
		// Looking copies the whole zone under the emulator's lock: keep the harness below a sixth of
		// the lock's time however often the tool writes.
		pause := max(5*time.Since(lookStart), 10*time.Millisecond)
		select {
		case <-deadline.C:
			return time.Time{}, nil, fmt.Errorf("not within %s: %s", timeout, progress)
		case <-ctx.Done():
			return time.Time{}, nil, ctx.Err()
		case <-changed:
			time.Sleep(pause)
		case <-time.After(time.Second):
		}
	}
}

// allAddresses holds when every host of want has an A record set holding exactly its address; the
// progress says how many do.
func allAddresses(want map[string]string) func([]route53emu.RecordSet) (bool, string) {
	return func(sets []route53emu.RecordSet) (bool, string) {
		right := 0
		for _, rs := range sets {
			if rs.Type != "A" {
				continue
			}
			ip, ok := want[strings.TrimSuffix(rs.Name, ".")]
			if ok && rs.ResourceRecords != nil && len(rs.ResourceRecords.Items) == 1 && rs.ResourceRecords.Items[0].Value == ip {
				right++
			}
		}
		return right == len(want), fmt.Sprintf("%d of %d A records hold their address (%d record sets in the zone)", right, len(want), len(sets))
	}
}

// address holds when host's A record set holds exactly ip; the progress says what it holds.
func address(host, ip string) func([]route53emu.RecordSet) (bool, string) {
	return func(sets []route53emu.RecordSet) (bool, string) {
		for _, rs := range sets {
			if rs.Type != "A" || strings.TrimSuffix(rs.Name, ".") != host {
				continue
			}
			var vals []string
			if rs.ResourceRecords != nil {
				for _, v := range rs.ResourceRecords.Items {
					vals = append(vals, v.Value)
				}
			}
			return len(vals) == 1 && vals[0] == ip, fmt.Sprintf("%s A holds %v, want %s", host, vals, ip)
		}
		return false, host + " has no A record set, want one holding " + ip
	}
}
