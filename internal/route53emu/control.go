package route53emu

import (
	"errors"
	"net/http"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/emucontrol"
)

// controlPrefix is the root of the test-only control API; no AWS path starts
// with it.
const controlPrefix = emucontrol.Prefix

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
	emucontrol.Serve(w, r, maxBody, emucontrol.DecodeJSON, emucontrol.Basic[Call, Counters](s).Add(emucontrol.Routes{
		"POST seed": emucontrol.Seeding(s.Seed),
		"GET zones": func(x *emucontrol.Exchange) { x.Reply(s.Dump()) },
		"PUT propagation-delay": emucontrol.Setting(func(in struct {
			Delay string `json:"delay"`
		}) error {
			d, err := time.ParseDuration(in.Delay)
			if err != nil || d < 0 {
				return errors.New("field delay: want a Go duration such as \"2s\", got " + in.Delay)
			}
			s.SetPropagationDelay(d)
			return nil
		}),
		"PUT rate-limit": emucontrol.Setting(func(in struct {
			RequestsPerSecond float64 `json:"requestsPerSecond"`
			Burst             int     `json:"burst"`
		}) error {
			if in.RequestsPerSecond < 0 || in.Burst < 0 {
				return errors.New("requestsPerSecond and burst must not be negative")
			}
			s.SetRateLimit(in.RequestsPerSecond, in.Burst)
			return nil
		}),
		"GET faults":  s.replyFaults,
		"POST faults": emucontrol.Adding(s.AddFault, s.replyFaults),
		"DELETE faults": func(x *emucontrol.Exchange) {
			s.ClearFaults()
			x.Reply([]Fault{})
		},
		"POST alias-targets": emucontrol.Setting(func(in struct {
			Names []string `json:"names"`
		}) error {
			s.RegisterAliasTargets(in.Names...)
			return nil
		}),
	}))
}

func (s *Server) replyFaults(x *emucontrol.Exchange) { x.Reply(s.Faults()) }
