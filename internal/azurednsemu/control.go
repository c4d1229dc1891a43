package azurednsemu

import (
	"net/http"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/emucontrol"
)

// controlPrefix is the root of the test-only control API; no ARM or Entra
// ID path starts with it.
const controlPrefix = emucontrol.Prefix

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
	emucontrol.Serve(w, r, maxBody, decodeControl, emucontrol.Basic[Call, Counters](s).Add(emucontrol.Routes{
		"POST seed": emucontrol.Seeding(func(seed Seed) (map[string]string, error) {
			return map[string]string{"status": "seeded"}, s.Seed(seed)
		}),
		"GET dump": func(x *emucontrol.Exchange) {
			d := s.Dump()
			if r.URL.Query().Get("etags") == "false" {
				d = WithoutETags(d)
			}
			x.Reply(d)
		},
		"PUT rate-limit": emucontrol.Setting(func(in struct {
			RequestsPerSecond float64 `json:"requestsPerSecond"`
			Burst             int     `json:"burst"`
			RetryAfter        int     `json:"retryAfter"`
		}) error {
			return s.SetRateLimit(in.RequestsPerSecond, in.Burst, in.RetryAfter)
		}),
		"GET faults":          s.replyFaults,
		"POST faults":         emucontrol.Adding(s.addPostedFault, s.replyFaults),
		"POST write-failures": emucontrol.Adding(s.FailWrites, s.replyFaults),
		"DELETE faults": func(x *emucontrol.Exchange) {
			s.ClearFaults()
			s.replyFaults(x)
		},
		"POST token": func(x *emucontrol.Exchange) {
			x.Reply(map[string]any{"access_token": s.IssueToken(), "token_type": "Bearer", "expires_in": int(tokenLifetime.Seconds())})
		},
		"GET routes": func(x *emucontrol.Exchange) { x.Reply(Routes()) },
	}))
}

// decodeControl decodes control bodies as strictly as ARM bodies, so a
// misspelt field in a test's fault is an error rather than ignored.
func decodeControl(_ string, body []byte, v any) error { return decodeStrict(body, v) }

func (s *Server) replyFaults(x *emucontrol.Exchange) {
	faults, writes := s.Faults()
	emucontrol.ReplyFaults(x, faults, func(f Fault) time.Duration { return f.Duration }, "writeFailures", writes)
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
