package route53emu

import (
	"encoding/json"
	"io"
	"net/http"
	"time"
)

// controlPrefix is the root of the test-only control API; no AWS path starts
// with it.
const controlPrefix = "/_emulator/"

// serveControl exposes the test hooks as JSON over HTTP:
//
//	POST   /_emulator/reset                 empty everything
//	POST   /_emulator/seed                  body Seed → [SeededZone]
//	GET    /_emulator/zones                 [ZoneDump]
//	GET    /_emulator/calls                 [Call];  DELETE clears calls and counters
//	GET    /_emulator/counters              Counters
//	PUT    /_emulator/propagation-delay     {"delay":"2s"}
//	PUT    /_emulator/rate-limit            {"requestsPerSecond":5,"burst":5}
//	GET    /_emulator/faults                [Fault]; POST adds one; DELETE clears
//	POST   /_emulator/alias-targets         {"names":["x.us-east-1.elb.amazonaws.com"]}
func (s *Server) serveControl(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path[len(controlPrefix):]
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		controlError(w, http.StatusBadRequest, err.Error())
		return
	}
	decode := func(v any) bool {
		if err := json.Unmarshal(body, v); err != nil {
			controlError(w, http.StatusBadRequest, "control API "+path+": invalid JSON body: "+err.Error())
			return false
		}
		return true
	}
	switch r.Method + " " + path {
	case "POST reset":
		s.Reset()
		controlJSON(w, map[string]string{"status": "reset"})
	case "POST seed":
		var seed Seed
		if !decode(&seed) {
			return
		}
		zones, err := s.Seed(seed)
		if err != nil {
			controlError(w, http.StatusBadRequest, err.Error())
			return
		}
		controlJSON(w, zones)
	case "GET zones":
		controlJSON(w, s.Dump())
	case "GET calls":
		controlJSON(w, s.Calls())
	case "DELETE calls":
		s.ClearCalls()
		controlJSON(w, map[string]string{"status": "cleared"})
	case "GET counters":
		controlJSON(w, s.Counters())
	case "PUT propagation-delay":
		var in struct {
			Delay string `json:"delay"`
		}
		if !decode(&in) {
			return
		}
		d, err := time.ParseDuration(in.Delay)
		if err != nil || d < 0 {
			controlError(w, http.StatusBadRequest, "control API propagation-delay: field delay: want a Go duration such as \"2s\", got "+in.Delay)
			return
		}
		s.SetPropagationDelay(d)
		controlJSON(w, in)
	case "PUT rate-limit":
		var in struct {
			RequestsPerSecond float64 `json:"requestsPerSecond"`
			Burst             int     `json:"burst"`
		}
		if !decode(&in) {
			return
		}
		if in.RequestsPerSecond < 0 || in.Burst < 0 {
			controlError(w, http.StatusBadRequest, "control API rate-limit: requestsPerSecond and burst must not be negative")
			return
		}
		s.SetRateLimit(in.RequestsPerSecond, in.Burst)
		controlJSON(w, in)
	case "GET faults":
		controlJSON(w, s.Faults())
	case "POST faults":
		var f Fault
		if !decode(&f) {
			return
		}
		if f.Code == "" {
			controlError(w, http.StatusBadRequest, "control API faults: field code is required (e.g. Throttling)")
			return
		}
		s.AddFault(f)
		controlJSON(w, s.Faults())
	case "DELETE faults":
		s.ClearFaults()
		controlJSON(w, []Fault{})
	case "POST alias-targets":
		var in struct {
			Names []string `json:"names"`
		}
		if !decode(&in) {
			return
		}
		s.RegisterAliasTargets(in.Names...)
		controlJSON(w, in)
	default:
		controlError(w, http.StatusNotFound, "control API: no route "+r.Method+" "+r.URL.Path)
	}
}

func controlJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func controlError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}
