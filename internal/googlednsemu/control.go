package googlednsemu

import (
	"errors"
	"net/http"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/emucontrol"
)

// controlPrefix is the root of the test-only control API; no Google path
// starts with it.
const controlPrefix = emucontrol.Prefix

// serveControl exposes the test hooks as JSON over HTTP:
//
//	POST   /_emulator/reset            empty everything (the rate limit setting stays)
//	POST   /_emulator/seed             body Seed → [SeededZone]
//	GET    /_emulator/dump             [ZoneDump]; ?ids=false blanks zone ids
//	GET    /_emulator/calls            [Call];  DELETE clears calls and counters
//	GET    /_emulator/counters         Counters
//	PUT    /_emulator/rate-limit       {"requestsPerSecond":2,"burst":2}
//	GET    /_emulator/faults           {"faults":[Fault],"changeFailures":[ChangeFailure]}
//	POST   /_emulator/faults           body Fault, "duration":"60s" allowed
//	POST   /_emulator/change-failures  body ChangeFailure
//	DELETE /_emulator/faults           clear faults and change failures
//	POST   /_emulator/token            {"scopes":[…]} → {"access_token":…} without a JWT
//	GET    /_emulator/routes           [Route]
func (s *Server) serveControl(w http.ResponseWriter, r *http.Request) {
	emucontrol.Serve(w, r, maxBody, decodeControl, emucontrol.Basic[Call, Counters](s).Add(emucontrol.Routes{
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
		}) error {
			return s.SetRateLimit(in.RequestsPerSecond, in.Burst)
		}),
		"GET faults":           s.replyFaults,
		"POST faults":          emucontrol.Adding(s.addPostedFault, s.replyFaults),
		"POST change-failures": emucontrol.Adding(s.FailChanges, s.replyFaults),
		"DELETE faults": func(x *emucontrol.Exchange) {
			s.ClearFaults()
			s.replyFaults(x)
		},
		"POST token": func(x *emucontrol.Exchange) {
			var in struct {
				Scopes []string `json:"scopes"`
			}
			if len(x.Body) > 0 && !x.Decode(&in) {
				return
			}
			x.Reply(map[string]any{"access_token": s.IssueToken(in.Scopes...), "token_type": "Bearer", "expires_in": int(tokenLifetime.Seconds())})
		},
		"GET routes": func(x *emucontrol.Exchange) { x.Reply(Routes()) },
	}))
}

// decodeControl decodes control bodies as strictly as API bodies, so a
// misspelt field in a test's fault is an error rather than ignored.
func decodeControl(path string, body []byte, v any) error {
	if e := decodeStrict(body, v, path); e != nil {
		return errors.New(e.message)
	}
	return nil
}

func (s *Server) replyFaults(x *emucontrol.Exchange) {
	faults, changes := s.Faults()
	emucontrol.ReplyFaults(x, faults, func(f Fault) time.Duration { return f.Duration }, "changeFailures", changes)
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
