package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// Handler serves p over the webhook protocol, negotiating filter. It is what `zonekeeper webhook`
// (external-dns's --webhook-server) runs: external-dns, or another zonekeeper, then uses zonekeeper's
// providers through --provider=webhook.
//
// Beyond external-dns's server: request bodies over MaxBodySize get 413; malformed requests get 400
// with the reason; when the provider refuses some changes and applies the rest, the answer is 500
// (external-dns's client retries on the next loop) with the refused changes named in a
// rejectionsType body; a provider that is unreachable gives 503.
func Handler(p provider.Provider, filter plan.DomainFilter, log *slog.Logger) http.Handler {
	return HandlerWithBodyLimit(p, filter, log, MaxBodySize)
}

// HandlerWithBodyLimit is Handler with another request body limit (--webhook-provider-max-body-size);
// 0 means no limit, as in external-dns.
func HandlerWithBodyLimit(p provider.Provider, filter plan.DomainFilter, log *slog.Logger, maxBody int64) http.Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &server{p: p, filter: filter, log: log, maxBody: maxBody}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.negotiate)
	mux.HandleFunc("GET "+pathRecords, s.records)
	mux.HandleFunc("POST "+pathRecords, s.apply)
	mux.HandleFunc("POST "+pathAdjust, s.adjust)
	mux.HandleFunc("GET "+pathHealth, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) })
	return mux
}

// ApplyTimeout bounds one POST /records on the backend (Route 53 sends batches a second apart). The
// HTTP server's write timeout and its shutdown must allow as much, or the answer (or the apply) is cut.
const ApplyTimeout = 5 * time.Minute

type server struct {
	p       provider.Provider
	filter  plan.DomainFilter
	log     *slog.Logger
	maxBody int64 // 0: no limit
}

func (s *server) negotiate(w http.ResponseWriter, _ *http.Request) {
	s.reply(w, http.StatusOK, encodeDomainFilter(s.filter))
}

// invalidate drops a provider's cache (Route 53's write-through cache). Behind the webhook no
// controller resyncs it, and external-dns lists every loop: each listing must read the backend.
func (s *server) invalidate() { provider.Wrapped{Provider: s.p}.Invalidate() }

func (s *server) records(w http.ResponseWriter, r *http.Request) {
	s.invalidate()
	eps, err := s.p.Records(r.Context())
	if err != nil {
		s.log.Error("Failed to list records for a webhook client", "error", err.Error())
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	if eps == nil {
		eps = []*endpoint.Endpoint{}
	}
	s.reply(w, http.StatusOK, eps)
}

func (s *server) apply(w http.ResponseWriter, r *http.Request) {
	var c plan.Changes
	if !s.decode(w, r, &c) {
		return
	}
	if len(c.UpdateOld) != len(c.UpdateNew) {
		http.Error(w, fmt.Sprintf("updateOld has %d records and updateNew %d: they must pair up", len(c.UpdateOld), len(c.UpdateNew)), http.StatusBadRequest)
		return
	}
	if err := checkChanges(&c); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	// A client that gives up (external-dns waits 15 s) must not cut an apply in the middle.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), ApplyTimeout)
	defer cancel()
	err := s.p.ApplyChanges(ctx, &c)
	if err == nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if ae, ok := provider.AsApplyError(err); ok {
		out := rejectionsJSON{Rejected: make([]rejectionJSON, len(ae.Rejected))}
		for i, rc := range ae.Rejected {
			out.Rejected[i] = rejectionJSON{Action: rc.Action, Endpoint: rc.Endpoint, Error: rc.Err.Error()}
		}
		s.log.Warn("Changes refused for a webhook client", "error", err.Error())
		w.Header().Set("Content-Type", rejectionsType)
		w.WriteHeader(http.StatusInternalServerError)
		_ = json.NewEncoder(w).Encode(out)
		return
	}
	// What was applied is unknown: the next listing must read the backend, not a cache.
	s.invalidate()
	s.log.Error("Failed to apply changes for a webhook client", "error", err.Error())
	http.Error(w, err.Error(), http.StatusServiceUnavailable)
}

func (s *server) adjust(w http.ResponseWriter, r *http.Request) {
	var eps []*endpoint.Endpoint
	if !s.decode(w, r, &eps) {
		return
	}
	for i, e := range eps {
		if e == nil {
			http.Error(w, fmt.Sprintf("endpoint %d is null", i), http.StatusBadRequest)
			return
		}
	}
	if adj, ok := s.p.(provider.EndpointAdjuster); ok {
		out, err := adj.AdjustEndpoints(r.Context(), eps)
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		eps = out
	}
	if eps == nil {
		eps = []*endpoint.Endpoint{}
	}
	s.reply(w, http.StatusOK, eps)
}

// decode reads a JSON body of at most maxBody bytes, answering 413 or 400 itself on failure.
func (s *server) decode(w http.ResponseWriter, r *http.Request, v any) bool {
	body := r.Body
	if s.maxBody > 0 {
		body = http.MaxBytesReader(w, r.Body, s.maxBody)
	}
	err := json.NewDecoder(body).Decode(v)
	if err == nil {
		return true
	}
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		http.Error(w, fmt.Sprintf("the body is larger than %d bytes (--webhook-provider-max-body-size)", s.maxBody), http.StatusRequestEntityTooLarge)
		return false
	}
	http.Error(w, "the body is not the expected JSON: "+err.Error(), http.StatusBadRequest)
	return false
}

func (s *server) reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", MediaType)
	w.WriteHeader(status)
	if err := json.NewEncoder(w).Encode(v); err != nil {
		s.log.Warn("Failed to write a webhook answer", "error", err.Error())
	}
}

// checkChanges rejects a body whose records lack a name or a type (nothing sensible can be done with
// them, and the provider would fail on them less clearly), and puts names in the form zonekeeper's
// providers keep them: lower case, no trailing dot.
func checkChanges(c *plan.Changes) error {
	for _, l := range []struct {
		field string
		list  []*endpoint.Endpoint
	}{{"create", c.Create}, {"updateOld", c.UpdateOld}, {"updateNew", c.UpdateNew}, {"delete", c.Delete}} {
		for i, e := range l.list {
			if e == nil || strings.TrimSuffix(e.DNSName, ".") == "" || e.RecordType == "" {
				return fmt.Errorf("%s[%d]: a record needs a dnsName and a recordType", l.field, i)
			}
			e.DNSName = strings.ToLower(strings.TrimSuffix(e.DNSName, "."))
		}
	}
	return nil
}
