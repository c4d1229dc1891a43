package cloudflareemu

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// maxBody bounds request bodies; a 3,500-item batch is well under 8 MiB.
const maxBody = 8 << 20

// serveAPI answers one Cloudflare API request.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	rel, under := strings.CutPrefix(r.URL.Path, strings.TrimSuffix(APIPrefix, "/"))
	var rt Route
	var params map[string]string
	pathKnown := false
	if under {
		rt, params, pathKnown = match(r.Method, rel)
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	s.mu.Lock()
	defer s.mu.Unlock()
	if rt.handler == nil {
		e := &apiError{status: http.StatusNotFound, errors: []errorDetail{
			{Code: CodeCouldNotRoute, Message: "Could not route to " + r.URL.Path + ", perhaps your object identifier is invalid?"},
			{Code: CodeNoRoute, Message: msgNoRoute},
		}}
		if pathKnown {
			e = newErr(http.StatusMethodNotAllowed, CodeMethodNotAllowed, r.Method+" method not allowed for "+rel)
		}
		s.record(r, OpUnrouted, "", e.status, e.code())
		writeError(w, e)
		return
	}
	zoneID := params["zone_id"]
	if e := s.admitLocked(r, rt.Operation, zoneID, body); e != nil {
		s.record(r, rt.Operation, zoneID, e.status, e.code())
		writeError(w, e)
		return
	}
	if err != nil || len(body) > maxBody {
		e := newErr(http.StatusRequestEntityTooLarge, CodeInvalidJSON, "Request body could not be read or is larger than 8 MiB")
		s.record(r, rt.Operation, zoneID, e.status, e.code())
		writeError(w, e)
		return
	}
	result, info, e := rt.handler(s, request{op: rt.Operation, params: params, r: r, body: body})
	if e != nil {
		s.record(r, rt.Operation, zoneID, e.status, e.code())
		writeError(w, e)
		return
	}
	s.record(r, rt.Operation, zoneID, http.StatusOK, 0)
	switch v := result.(type) {
	case bareBody:
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v.v)
	case noResult:
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"success": true, "errors": []errorDetail{}, "messages": []errorDetail{}})
	default:
		writeResult(w, result, info)
	}
}

// bareBody is a success answer written without the envelope, as Cloudflare
// answers DELETE custom_hostnames/{id} with just {"id": …}.
type bareBody struct{ v any }

// noResult is a success envelope without a result member, as Cloudflare
// answers DELETE addressing/regional_hostnames/{hostname}.
type noResult struct{}

// authenticate requires a bearer token or an X-Auth-Key/X-Auth-Email pair
// and, when Options.APITokens is set, one of those tokens. It returns the
// credential the rate limit is kept for.
func (s *Server) authenticate(r *http.Request) (string, *apiError) {
	if auth := r.Header.Get("Authorization"); auth != "" {
		token, ok := strings.CutPrefix(auth, "Bearer ")
		if !ok || strings.TrimSpace(token) == "" {
			return "", newErr(http.StatusBadRequest, 6111, "Invalid format for Authorization header")
		}
		if len(s.opts.APITokens) > 0 {
			known := false
			for _, t := range s.opts.APITokens {
				known = known || t == token
			}
			if !known {
				return "", newErr(http.StatusUnauthorized, CodeAuthError, "Authentication error")
			}
		}
		return "token:" + token, nil
	}
	key, email := r.Header.Get("X-Auth-Key"), r.Header.Get("X-Auth-Email")
	if key != "" && email != "" {
		if len(s.opts.APITokens) > 0 {
			return "", newErr(http.StatusUnauthorized, CodeAuthError, "Authentication error")
		}
		return "key:" + email, nil
	}
	return "", newErr(http.StatusBadRequest, CodeMissingAuth, "Missing X-Auth-Key, X-Auth-Email or Authorization headers")
}
