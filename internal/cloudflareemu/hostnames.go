package cloudflareemu

import "net/http"

// customHostname and regionalHostname are filled in by the hostname
// endpoints.
type customHostname struct{}

type regionalHostname struct{}

func notYet(req request) (any, *resultInfo, *apiError) {
	return nil, nil, newErr(http.StatusNotImplemented, CodeNoRoute, req.op+" is not emulated yet")
}

func (s *Server) listCustomHostnames(req request) (any, *resultInfo, *apiError)   { return notYet(req) }
func (s *Server) newCustomHostname(req request) (any, *resultInfo, *apiError)     { return notYet(req) }
func (s *Server) getCustomHostname(req request) (any, *resultInfo, *apiError)     { return notYet(req) }
func (s *Server) deleteCustomHostname(req request) (any, *resultInfo, *apiError)  { return notYet(req) }
func (s *Server) listRegionalHostnames(req request) (any, *resultInfo, *apiError) { return notYet(req) }
func (s *Server) newRegionalHostname(req request) (any, *resultInfo, *apiError)   { return notYet(req) }
func (s *Server) getRegionalHostname(req request) (any, *resultInfo, *apiError)   { return notYet(req) }
func (s *Server) editRegionalHostname(req request) (any, *resultInfo, *apiError)  { return notYet(req) }
func (s *Server) deleteRegionalHostname(req request) (any, *resultInfo, *apiError) {
	return notYet(req)
}
