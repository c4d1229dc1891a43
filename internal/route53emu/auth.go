package route53emu

import (
	"net/http"
	"strings"
)

// principal is who signed a request, as far as the emulator can tell from the
// Credential scope (signatures are not verified).
type principal struct {
	accessKey string
	account   string
	arn       string
	session   *stsSession
}

// accessKeyOf extracts AKID from "AWS4-HMAC-SHA256 Credential=AKID/date/…".
func accessKeyOf(r *http.Request) string {
	h := r.Header.Get("Authorization")
	_, rest, ok := strings.Cut(h, "Credential=")
	if !ok {
		return ""
	}
	key, _, _ := strings.Cut(rest, "/")
	return key
}

func (s *Server) principalLocked(r *http.Request) principal {
	key := accessKeyOf(r)
	if sess, ok := s.sessions[key]; ok {
		return principal{accessKey: key, account: sess.account, arn: sess.assumedRoleARN, session: sess}
	}
	name := key
	if name == "" {
		name = "anonymous"
	}
	return principal{accessKey: key, account: s.opts.AccountID, arn: "arn:aws:iam::" + s.opts.AccountID + ":user/" + name}
}

// authenticateLocked requires a SigV4 Authorization header (unless
// AllowUnsigned) and, for temporary credentials issued by the emulator's STS,
// the matching X-Amz-Security-Token, so an IRSA test proves the credentials
// really came from the web identity exchange.
func (s *Server) authenticateLocked(r *http.Request, p principal) *apiError {
	if !strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 ") || p.accessKey == "" {
		if s.opts.AllowUnsigned {
			return nil
		}
		return newErr(http.StatusForbidden, "MissingAuthenticationToken", "Missing Authentication Token")
	}
	token := r.Header.Get("X-Amz-Security-Token")
	if p.session != nil {
		if token != p.session.sessionToken {
			return newErr(http.StatusForbidden, "InvalidClientTokenId", "The security token included in the request is invalid.")
		}
		if !s.now().Before(p.session.expiration) {
			return newErr(http.StatusForbidden, "ExpiredToken", "The security token included in the request is expired")
		}
		return nil
	}
	if token != "" && strings.HasPrefix(p.accessKey, "ASIA") && strings.HasPrefix(token, stsTokenPrefix) {
		return newErr(http.StatusForbidden, "InvalidClientTokenId", "The security token included in the request is invalid.")
	}
	return nil
}
