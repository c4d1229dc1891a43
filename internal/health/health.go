// Package health answers the liveness and readiness probes. /healthz says the process is alive.
// /readyz says whether this replica does its job: its informers have synced and — when it leads —
// its last reconcile succeeded recently; when not, the body says why.
package health

import (
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/controller"
)

// Health tracks readiness. It implements controller.Observer.
type Health struct {
	maxAge time.Duration
	now    func() time.Time

	mu          sync.Mutex
	synced      bool
	electionOn  bool
	leader      bool
	lastSuccess time.Time
	lastFailure time.Time
	lastErr     string
}

// New returns a tracker that calls a replica unready when its last successful reconcile is older than
// maxAge (a full resync runs every --interval, so twice that is a good bound).
func New(maxAge time.Duration) *Health {
	return &Health{maxAge: maxAge, now: time.Now, leader: true}
}

// SourcesSynced records that the informer caches are filled.
func (h *Health) SourcesSynced() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.synced = true
}

// SetLeader records the replica's role under leader election.
func (h *Health) SetLeader(leader bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.electionOn, h.leader = true, leader
}

// Reconciled implements controller.Observer.
func (h *Health) Reconciled(r controller.Report) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if r.Err != nil {
		h.lastFailure = r.Finished
		h.lastErr = fmt.Sprintf("%s: %v", r.Stage, r.Err)
		return
	}
	h.lastSuccess = r.Finished
}

// Ready reports readiness and the reason.
func (h *Health) Ready() (bool, string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case !h.synced:
		return false, "informer caches have not synced yet"
	case h.electionOn && !h.leader:
		return true, "follower: caches synced, waiting to lead"
	case h.lastFailure.After(h.lastSuccess):
		return false, fmt.Sprintf("last reconcile failed at %s: %s", h.lastFailure.UTC().Format(time.RFC3339), h.lastErr)
	case h.lastSuccess.IsZero():
		return false, "no reconcile has finished yet"
	case h.now().Sub(h.lastSuccess) > h.maxAge:
		return false, fmt.Sprintf("last successful reconcile was %s ago (limit %s)", h.now().Sub(h.lastSuccess).Round(time.Second), h.maxAge)
	}
	return true, "ok: last successful reconcile at " + h.lastSuccess.UTC().Format(time.RFC3339)
}

// Register adds /healthz and /readyz to mux.
func (h *Health) Register(mux *http.ServeMux) {
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		ok, reason := h.Ready()
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if !ok {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		fmt.Fprintln(w, reason)
	})
}
