package azurednsemu

import (
	"encoding/json"
	"io"
	"net/http"
	"time"
)

// controlPrefix is the root of the test-only control API; no ARM or Entra
// ID path starts with it.
const controlPrefix = "/_emulator/"

// serveControl exposes the test hooks as JSON over HTTP (see README.md):
//
//	POST   /_emulator/reset            empty everything (credentials and rate limit stay)
//	POST   /_emulator/seed             body Seed
//	GET    /_emulator/dump             [ZoneDump]; ?etags=false blanks etags
//	GET    /_emulator/calls            [Call];  DELETE clears calls and counters
//	GET    /_emulator/counters         Counters
//	PUT    /_emulator/rate-limit       {"requestsPerSecond":2,"burst":2,"retryAfter":1}
//	GET    /_emulator/faults           {"faults":[Fault],"writeFailures":[WriteFailure]}
//	POST   /_emulator/faults           body Fault, "duration":"60s" allowed
//	POST   /_emulator/write-failures   body WriteFailure
//	DELETE /_emulator/faults           clear faults and write failures
//	POST   /_emulator/token            → {"access_token":…} without a login
//	GET    /_emulator/routes           [Route]
func (s *Server) serveControl(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path[len(controlPrefix):]
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		controlError(w, http.StatusBadRequest, err.Error())
		return
	}
	decode := func(v any) bool {
		if e := decodeStrict(body, v); e != nil {
			controlError(w, http.StatusBadRequest, "control API "+path+": "+e.Error())
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
		if err := s.Seed(seed); err != nil {
			controlError(w, http.StatusBadRequest, err.Error())
			return
		}
		controlJSON(w, map[string]string{"status": "seeded"})
	case "GET dump":
		d := s.Dump()
		if r.URL.Query().Get("etags") == "false" {
			d = WithoutETags(d)
		}
		controlJSON(w, d)
	case "GET calls":
		controlJSON(w, s.Calls())
	case "DELETE calls":
		s.ClearCalls()
		controlJSON(w, map[string]string{"status": "cleared"})
	case "GET counters":
		controlJSON(w, s.Counters())
	case "PUT rate-limit":
		var in struct {
			RequestsPerSecond float64 `json:"requestsPerSecond"`
			Burst             int     `json:"burst"`
			RetryAfter        int     `json:"retryAfter"`
		}
		if !decode(&in) {
			return
		}
		if err := s.SetRateLimit(in.RequestsPerSecond, in.Burst, in.RetryAfter); err != nil {
			controlError(w, http.StatusBadRequest, "control API rate-limit: "+err.Error())
			return
		}
		controlJSON(w, in)
	case "GET faults":
		s.writeFaults(w)
	case "POST faults":
		var in struct {
			Fault
			Duration string `json:"duration"`
		}
		if !decode(&in) {
			return
		}
		f := in.Fault
		if in.Duration != "" {
			d, err := time.ParseDuration(in.Duration)
			if err != nil || d <= 0 {
				controlError(w, http.StatusBadRequest, "control API faults: field duration: want a positive Go duration such as \"60s\", got "+in.Duration)
				return
			}
			f.Duration = d
		}
		if err := s.AddFault(f); err != nil {
			controlError(w, http.StatusBadRequest, "control API faults: "+err.Error())
			return
		}
		s.writeFaults(w)
	case "POST write-failures":
		var wf WriteFailure
		if !decode(&wf) {
			return
		}
		if err := s.FailWrites(wf); err != nil {
			controlError(w, http.StatusBadRequest, "control API write-failures: "+err.Error())
			return
		}
		s.writeFaults(w)
	case "DELETE faults":
		s.ClearFaults()
		s.writeFaults(w)
	case "POST token":
		controlJSON(w, map[string]any{"access_token": s.IssueToken(), "token_type": "Bearer", "expires_in": int(tokenLifetime.Seconds())})
	case "GET routes":
		controlJSON(w, Routes())
	default:
		controlError(w, http.StatusNotFound, "control API: no route "+r.Method+" "+r.URL.Path)
	}
}

func (s *Server) writeFaults(w http.ResponseWriter) {
	faults, writes := s.Faults()
	type faultOut struct {
		Fault
		Remaining string `json:"remaining,omitempty"`
	}
	out := struct {
		Faults        []faultOut     `json:"faults"`
		WriteFailures []WriteFailure `json:"writeFailures"`
	}{Faults: []faultOut{}, WriteFailures: writes}
	for _, f := range faults {
		fo := faultOut{Fault: f}
		if f.Duration > 0 {
			fo.Remaining = f.Duration.String()
		}
		out.Faults = append(out.Faults, fo)
	}
	controlJSON(w, out)
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
