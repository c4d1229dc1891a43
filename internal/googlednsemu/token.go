package googlednsemu

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Scopes of the discovery document's auth section.
const (
	ScopeCloudPlatform   = "https://www.googleapis.com/auth/cloud-platform"
	ScopeCloudPlatformRO = "https://www.googleapis.com/auth/cloud-platform.read-only"
	ScopeReadWrite       = "https://www.googleapis.com/auth/ndev.clouddns.readwrite"
	ScopeReadOnly        = "https://www.googleapis.com/auth/ndev.clouddns.readonly"
)

// jwtBearerGrant is the grant type of a service-account key's token request
// (RFC 7523), the one golang.org/x/oauth2/jwt sends.
const jwtBearerGrant = "urn:ietf:params:oauth:grant-type:jwt-bearer"

// tokenLifetime is how long an issued access token is valid, as Google's are.
const tokenLifetime = time.Hour

// accessToken is an issued token: who it was for and what it may do.
type accessToken struct {
	subject string
	scopes  []string
	expires time.Time
}

// serveToken answers POST /token: a JWT-bearer grant signed by a service
// account key. The signature is not checked (the emulator does not know the
// public keys); the claims are: iss, scope, aud, iat and exp must be there,
// exp after now and at most an hour after iat.
func (s *Server) serveToken(w http.ResponseWriter, r *http.Request) {
	oauthErr := func(status int, code, desc string) {
		s.mu.Lock()
		s.record(r, OpToken, nil, status, code)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": desc})
	}
	if r.Method != http.MethodPost {
		oauthErr(http.StatusMethodNotAllowed, "invalid_request", "the token endpoint takes POST only")
		return
	}
	if err := r.ParseForm(); err != nil {
		oauthErr(http.StatusBadRequest, "invalid_request", "body is not a form: "+err.Error())
		return
	}
	if g := r.PostForm.Get("grant_type"); g != jwtBearerGrant {
		oauthErr(http.StatusBadRequest, "unsupported_grant_type", "grant_type "+g+": the emulator accepts only "+jwtBearerGrant)
		return
	}
	claims, desc := parseAssertion(r.PostForm.Get("assertion"))
	if desc != "" {
		oauthErr(http.StatusBadRequest, "invalid_grant", desc)
		return
	}
	now := s.now()
	if exp := time.Unix(claims.Exp, 0); !exp.After(now) || exp.Sub(time.Unix(claims.Iat, 0)) > tokenLifetime {
		oauthErr(http.StatusBadRequest, "invalid_grant", "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.")
		return
	}
	scopes := strings.Fields(claims.Scope)
	s.mu.Lock()
	token := s.issueLocked(claims.Iss, scopes)
	s.record(r, OpToken, nil, http.StatusOK, "")
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"access_token": token, "token_type": "Bearer", "expires_in": int(tokenLifetime.Seconds()),
	})
}

type jwtClaims struct {
	Iss   string `json:"iss"`
	Scope string `json:"scope"`
	Aud   string `json:"aud"`
	Iat   int64  `json:"iat"`
	Exp   int64  `json:"exp"`
}

// parseAssertion decodes a compact RS256 JWT and checks its claims are
// present; it returns a description of what is wrong, or "".
func parseAssertion(a string) (jwtClaims, string) {
	var c jwtClaims
	parts := strings.Split(a, ".")
	if len(parts) != 3 {
		return c, "assertion is not a JWT (want three dot-separated parts)"
	}
	var hdr struct {
		Alg string `json:"alg"`
	}
	for i, v := range []any{&hdr, &c} {
		raw, err := base64.RawURLEncoding.DecodeString(parts[i])
		if err == nil {
			err = json.Unmarshal(raw, v)
		}
		if err != nil {
			return c, "assertion part " + []string{"header", "claims"}[i] + " is not base64url JSON: " + err.Error()
		}
	}
	switch {
	case hdr.Alg != "RS256":
		return c, "assertion alg " + hdr.Alg + ": want RS256"
	case c.Iss == "":
		return c, "Invalid JWT: claim iss (the service account's email) is missing"
	case c.Scope == "":
		return c, "Invalid JWT: claim scope is missing"
	case !strings.HasSuffix(c.Aud, TokenPath):
		return c, "Invalid JWT: claim aud " + c.Aud + " is not a token endpoint (want …/token)"
	case c.Iat == 0 || c.Exp == 0:
		return c, "Invalid JWT: claims iat and exp are required"
	case parts[2] == "":
		return c, "assertion has no signature"
	}
	return c, ""
}

func (s *Server) issueLocked(subject string, scopes []string) string {
	var b [24]byte
	_, _ = rand.Read(b[:])
	token := "ya29.emu-" + hex.EncodeToString(b[:])
	s.tokens[token] = &accessToken{subject: subject, scopes: scopes, expires: s.now().Add(tokenLifetime)}
	return token
}

// IssueToken returns an access token with the given scopes (all scopes when
// none are given) without going through /token.
func (s *Server) IssueToken(scopes ...string) string {
	if len(scopes) == 0 {
		scopes = []string{ScopeCloudPlatform}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.issueLocked("emulator-hook", scopes)
}

// authenticateLocked finds the request's access token (Authorization:
// Bearer, or the access_token/oauth_token query parameter) and returns its
// scopes.
func (s *Server) authenticateLocked(r *http.Request) ([]string, *apiError) {
	token, hasBearer := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !hasBearer {
		token = r.URL.Query().Get("access_token")
		if token == "" {
			token = r.URL.Query().Get("oauth_token")
		}
	}
	if token == "" {
		return nil, newErr(http.StatusUnauthorized, "required", "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential.")
	}
	if slices.Contains(s.opts.StaticTokens, token) {
		return []string{ScopeCloudPlatform}, nil
	}
	t, ok := s.tokens[token]
	if !ok || !s.now().Before(t.expires) {
		return nil, newErr(http.StatusUnauthorized, "authError", "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.")
	}
	return t.scopes, nil
}

// checkScope refuses a token whose scopes do not cover the method, as the
// discovery document lists them per method.
func checkScope(scopes []string, write bool) *apiError {
	allowed := []string{ScopeCloudPlatform, ScopeReadWrite}
	if !write {
		allowed = append(allowed, ScopeCloudPlatformRO, ScopeReadOnly)
	}
	for _, sc := range scopes {
		if slices.Contains(allowed, sc) {
			return nil
		}
	}
	return newErr(http.StatusForbidden, "insufficientPermissions", "Request had insufficient authentication scopes.")
}
