// Package health answers the liveness and readiness probes. /healthz says the process is alive.
// /readyz says whether this replica does its job: its informers have synced and — when it leads —
// its last reconcile succeeded recently; when not, the body says why.
package health

import (
	"fmt"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/controller"
)

// Health tracks readiness. It implements controller.Observer.
type Health struct {
	maxAge time.Duration
	now    func() time.Time

	mu         sync.Mutex
	synced     bool
	electionOn bool
	leader     bool
	// views holds the last outcome per view ("" without views); every view must be healthy.
	views map[string]*outcome
	// sources holds why a source kind does not run fully (CRD missing, RBAC); empty when all do.
	sources map[string]string
}

type outcome struct {
	lastSuccess time.Time
	lastFailure time.Time
	lastErr     string
	// guard says why the mass-change guard holds changes, "" when it holds none.
	guard string
}

// New returns a tracker that calls a replica unready when its last successful reconcile is older than
// maxAge (a full resync runs every --interval, so twice that is a good bound).
func New(maxAge time.Duration) *Health {
	return &Health{maxAge: maxAge, now: time.Now, leader: true, views: map[string]*outcome{}}
}

// SourcesSynced records that the informer caches are filled.
func (h *Health) SourcesSynced() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.synced = true
}

// SourceState records whether a source kind runs fully (err nil) or why not.
func (h *Health) SourceState(kind string, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if err == nil {
		delete(h.sources, kind)
		return
	}
	if h.sources == nil {
		h.sources = map[string]string{}
	}
	h.sources[kind] = err.Error()
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
	o := h.views[r.View]
	if o == nil {
		o = &outcome{}
		h.views[r.View] = o
	}
	o.guard = ""
	for _, v := range r.Guard {
		if v.Held {
			o.guard = fmt.Sprintf("mass change held in zone %q: it %s (confirm with --guard-confirm=%s)", v.Zone, v.Reason, v.Digest)
			break
		}
	}
	if r.Err != nil {
		o.lastFailure = r.Finished
		o.lastErr = fmt.Sprintf("%s: %v", r.Stage, r.Err)
		return
	}
	o.lastSuccess = r.Finished
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
	case len(h.views) == 0:
		return false, "no reconcile has finished yet"
	case len(h.sources) > 0:
		kinds := make([]string, 0, len(h.sources))
		for k := range h.sources {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		return false, fmt.Sprintf("--source=%s cannot run fully: %s", kinds[0], h.sources[kinds[0]])
	}
	names := make([]string, 0, len(h.views))
	for v := range h.views {
		names = append(names, v)
	}
	sort.Strings(names)
	var oldest time.Time
	for _, v := range names {
		o, where := h.views[v], ""
		if v != "" {
			where = "view " + v + ": "
		}
		switch {
		case o.lastFailure.After(o.lastSuccess):
			return false, fmt.Sprintf("%slast reconcile failed at %s: %s", where, o.lastFailure.UTC().Format(time.RFC3339), o.lastErr)
		case o.guard != "":
			return false, where + o.guard
		case h.now().Sub(o.lastSuccess) > h.maxAge:
			return false, fmt.Sprintf("%slast successful reconcile was %s ago (limit %s)", where, h.now().Sub(o.lastSuccess).Round(time.Second), h.maxAge)
		}
		if oldest.IsZero() || o.lastSuccess.Before(oldest) {
			oldest = o.lastSuccess
		}
	}
	return true, "ok: last successful reconcile at " + oldest.UTC().Format(time.RFC3339)
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
