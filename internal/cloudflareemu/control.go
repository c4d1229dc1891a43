package cloudflareemu

import (
	"net/http"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/emucontrol"
)

// controlPrefix is the root of the test-only control API; no Cloudflare path
// starts with it.
const controlPrefix = emucontrol.Prefix

// serveControl exposes the test hooks as JSON over HTTP:
//
//	POST   /_emulator/reset            empty everything
//	POST   /_emulator/seed             body Seed → [SeededZone]
//	GET    /_emulator/dump             [ZoneDump] (records sorted; ?ids=false blanks ids)
//	GET    /_emulator/calls            [Call];  DELETE clears calls and counters
//	GET    /_emulator/counters         Counters
//	PUT    /_emulator/rate-limit       {"requestsPerSecond":4,"burst":4,"duration":"60s"} (duration optional; a later call wins over a running window)
//	GET    /_emulator/faults           {"faults":[Fault],"batchFailures":[BatchFailure]}
//	POST   /_emulator/faults           body Fault, "duration":"60s" allowed
//	POST   /_emulator/batch-failures   body BatchFailure
//	DELETE /_emulator/faults           clear faults and batch failures
//	GET    /_emulator/routes           [Route]
func (s *Server) serveControl(w http.ResponseWriter, r *http.Request) {
	emucontrol.Serve(w, r, maxBody, emucontrol.DecodeJSON, emucontrol.Basic[Call, Counters](s).Add(emucontrol.Routes{
		"POST seed": emucontrol.Seeding(s.Seed),
		"GET dump": func(x *emucontrol.Exchange) {
			d := s.Dump()
			if r.URL.Query().Get("ids") == "false" {
				d = WithoutIDs(d)
			}
			x.Reply(d)
		},
		"PUT rate-limit": emucontrol.Setting(func(in struct {
			RequestsPerSecond float64 `json:"requestsPerSecond"`
			Burst             int     `json:"burst"`
			Duration          string  `json:"duration,omitempty"`
		}) error {
			d, err := emucontrol.PositiveDuration("duration", in.Duration)
			if err != nil {
				return err
			}
			return s.SetRateLimitFor(in.RequestsPerSecond, in.Burst, d)
		}),
		"GET faults":          s.replyFaults,
		"POST faults":         emucontrol.Adding(s.addPostedFault, s.replyFaults),
		"POST batch-failures": emucontrol.Adding(s.FailBatches, s.replyFaults),
		"DELETE faults": func(x *emucontrol.Exchange) {
			s.ClearFaults()
			s.replyFaults(x)
		},
		"GET routes": func(x *emucontrol.Exchange) { x.Reply(Routes()) },
	}))
}

func (s *Server) replyFaults(x *emucontrol.Exchange) {
	faults, batch := s.Faults()
	emucontrol.ReplyFaults(x, faults, func(f Fault) time.Duration { return f.Duration }, "batchFailures", batch)
}

// postedFault is a fault as the control API takes it: its duration is a Go
// duration string, because Fault.Duration is not a JSON field. It is an
// alias of an unnamed struct so JSON errors keep reading "Go struct field
// .Fault.code", as they did before the type had a name.
type postedFault = struct {
	Fault
	Duration string `json:"duration"`
}

func (s *Server) addPostedFault(in postedFault) (err error) {
	if in.Fault.Duration, err = emucontrol.PositiveDuration("duration", in.Duration); err != nil {
		return err
	}
	return s.AddFault(in.Fault)
}
