package azurednsemu

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The Entra ID (AAD) endpoints a client-secret login through azidentity and
// MSAL Go takes. For an authority host outside Microsoft's list, MSAL asks
// instance discovery at login.microsoftonline.com (never at the custom
// host) unless instance discovery is disabled, then the tenant's OpenID
// configuration at the host that discovery named, then its token endpoint.
const (
	aadInstanceDiscoveryPath = "/common/discovery/instance"
	aadOpenIDSuffix          = "/v2.0/.well-known/openid-configuration"
	aadTokenSuffix           = "/oauth2/v2.0/token"
)

// tokenLifetime is how long an issued access token is accepted.
const tokenLifetime = time.Hour

func isAADPath(p string) bool {
	return p == aadInstanceDiscoveryPath || tenantOf(p, aadOpenIDSuffix) != "" || tenantOf(p, aadTokenSuffix) != ""
}

// tenantOf returns TENANT for a path "/TENANT"+suffix, else "".
func tenantOf(p, suffix string) string {
	t, ok := strings.CutSuffix(p, suffix)
	if !ok || !strings.HasPrefix(t, "/") || strings.Contains(t[1:], "/") {
		return ""
	}
	return t[1:]
}

// aadError is OAuth2's error body with the AADSTS code in the description,
// as Entra ID answers.
func aadError(w http.ResponseWriter, status int, code, desc string, aadsts int) {
	writeJSON(w, status, map[string]any{"error": code, "error_description": fmt.Sprintf("AADSTS%d: %s", aadsts, desc), "error_codes": []int{aadsts}})
}

func (s *Server) serveAAD(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := r.URL.Path
	switch {
	case p == aadInstanceDiscoveryPath:
		s.record(r, OpAADInstanceDiscovery, nil, s.instanceDiscovery(w, r), "")
	case tenantOf(p, aadOpenIDSuffix) != "":
		s.record(r, OpAADOpenIDConfiguration, nil, s.openIDConfiguration(w, r, tenantOf(p, aadOpenIDSuffix)), "")
	default:
		s.record(r, OpAADToken, nil, s.token(w, r, tenantOf(p, aadTokenSuffix)), "")
	}
}

// instanceDiscovery answers with the tenant discovery endpoint on the host
// of the authorization_endpoint the client sent, so the configuration is
// then fetched from the emulator under the authority's own host name.
func (s *Server) instanceDiscovery(w http.ResponseWriter, r *http.Request) int {
	if r.Method != http.MethodGet {
		aadError(w, http.StatusMethodNotAllowed, "invalid_request", "instance discovery takes GET.", 900561)
		return http.StatusMethodNotAllowed
	}
	auth, err := url.Parse(r.URL.Query().Get("authorization_endpoint"))
	tenant, ok := "", false
	if err == nil {
		tenant, ok = strings.CutSuffix(auth.EscapedPath(), "/oauth2/v2.0/authorize")
	}
	if !ok || auth.Scheme != "https" || auth.Host == "" || tenantOf(tenant+aadTokenSuffix, aadTokenSuffix) == "" {
		aadError(w, http.StatusBadRequest, "invalid_instance", "The authorization_endpoint query parameter must be https://HOST/TENANT/oauth2/v2.0/authorize.", 50049)
		return http.StatusBadRequest
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"tenant_discovery_endpoint": "https://" + auth.Host + tenant + aadOpenIDSuffix,
		"api-version":               "1.1",
		"metadata":                  []map[string]any{{"preferred_network": auth.Host, "preferred_cache": auth.Host, "aliases": []string{auth.Host}}},
	})
	return http.StatusOK
}

func (s *Server) knownTenant(t string) bool {
	for _, c := range s.creds {
		if strings.EqualFold(c.TenantID, t) {
			return true
		}
	}
	return false
}

func (s *Server) openIDConfiguration(w http.ResponseWriter, r *http.Request, tenant string) int {
	if !s.knownTenant(tenant) {
		aadError(w, http.StatusBadRequest, "invalid_tenant", fmt.Sprintf("Tenant '%s' not found (emulator: no credential registered for it).", tenant), 90002)
		return http.StatusBadRequest
	}
	base := "https://" + r.Host + "/" + tenant
	writeJSON(w, http.StatusOK, map[string]any{
		"token_endpoint":                        base + aadTokenSuffix,
		"authorization_endpoint":                base + "/oauth2/v2.0/authorize",
		"issuer":                                base + "/v2.0",
		"token_endpoint_auth_methods_supported": []string{"client_secret_post", "private_key_jwt", "client_secret_basic"},
		"response_types_supported":              []string{"code", "id_token", "code id_token", "id_token token"},
		"subject_types_supported":               []string{"pairwise"},
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"scopes_supported":                      []string{"openid", "profile", "email", "offline_access"},
		"tenant_region_scope":                   "NA",
	})
	return http.StatusOK
}

// token is the client-credentials grant with a client secret: the tenant,
// client id and secret must be a registered Credential, and the scope a
// resource's "/.default".
func (s *Server) token(w http.ResponseWriter, r *http.Request, tenant string) int {
	if r.Method != http.MethodPost {
		aadError(w, http.StatusMethodNotAllowed, "invalid_request", "The token endpoint takes POST.", 900561)
		return http.StatusMethodNotAllowed
	}
	if err := r.ParseForm(); err != nil {
		aadError(w, http.StatusBadRequest, "invalid_request", "The request body must be application/x-www-form-urlencoded.", 900144)
		return http.StatusBadRequest
	}
	f := r.PostForm
	if g := f.Get("grant_type"); g != "client_credentials" {
		aadError(w, http.StatusBadRequest, "unsupported_grant_type", fmt.Sprintf("The grant type '%s' is not emulated; only client_credentials with a client secret is.", g), 70003)
		return http.StatusBadRequest
	}
	if !s.knownTenant(tenant) {
		aadError(w, http.StatusBadRequest, "invalid_tenant", fmt.Sprintf("Tenant '%s' not found.", tenant), 90002)
		return http.StatusBadRequest
	}
	id := f.Get("client_id")
	var cred *Credential
	for i, c := range s.creds {
		if strings.EqualFold(c.TenantID, tenant) && c.ClientID == id {
			cred = &s.creds[i]
		}
	}
	if cred == nil {
		aadError(w, http.StatusBadRequest, "unauthorized_client", fmt.Sprintf("Application with identifier '%s' was not found in the directory '%s'.", id, tenant), 700016)
		return http.StatusBadRequest
	}
	if f.Get("client_secret") == "" {
		aadError(w, http.StatusBadRequest, "invalid_client", "The request body must contain the parameter 'client_secret' (client assertions are not emulated).", 7000218)
		return http.StatusBadRequest
	}
	if f.Get("client_secret") != cred.ClientSecret {
		aadError(w, http.StatusUnauthorized, "invalid_client", fmt.Sprintf("Invalid client secret provided for app '%s'.", id), 7000215)
		return http.StatusUnauthorized
	}
	resource := ""
	for _, sc := range strings.Fields(f.Get("scope")) {
		if r, ok := strings.CutSuffix(sc, "/.default"); ok {
			resource = r
		}
	}
	if resource == "" {
		aadError(w, http.StatusBadRequest, "invalid_scope", fmt.Sprintf("The scope '%s' is not valid: the client-credentials grant needs RESOURCE/.default.", f.Get("scope")), 1002012)
		return http.StatusBadRequest
	}
	tok := s.issueTokenLocked()
	writeJSON(w, http.StatusOK, map[string]any{"token_type": "Bearer", "expires_in": int(tokenLifetime.Seconds()) - 1,
		"ext_expires_in": int(tokenLifetime.Seconds()) - 1, "access_token": tok})
	return http.StatusOK
}

func (s *Server) issueTokenLocked() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	tok := "emu-" + hex.EncodeToString(b)
	s.tokens[tok] = s.now().Add(tokenLifetime)
	return tok
}

// IssueToken returns an access token ARM calls accept for an hour, without
// a login.
func (s *Server) IssueToken() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.issueTokenLocked()
}

// AddCredential registers an application for the client-credentials grant.
func (s *Server) AddCredential(c Credential) error {
	if c.TenantID == "" || c.ClientID == "" || c.ClientSecret == "" {
		return fmt.Errorf("credential: tenantId, clientId and clientSecret must all be set")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.creds = append(s.creds, c)
	return nil
}

// authorizeLocked checks an ARM call's bearer token.
func (s *Server) authorizeLocked(r *http.Request) *armError {
	h := r.Header.Get("Authorization")
	if h == "" {
		return newErr(http.StatusUnauthorized, "AuthenticationFailed", "Authentication failed. The 'Authorization' header is missing.")
	}
	tok, ok := strings.CutPrefix(h, "Bearer ")
	if !ok {
		return newErr(http.StatusUnauthorized, "AuthenticationFailed", "Authentication failed. The 'Authorization' header is provided in an invalid format.")
	}
	for _, st := range s.opts.StaticTokens {
		if tok == st {
			return nil
		}
	}
	exp, ok := s.tokens[tok]
	if !ok {
		return newErr(http.StatusUnauthorized, "InvalidAuthenticationToken", "The access token is invalid (not issued by this emulator).")
	}
	if !s.now().Before(exp) {
		return newErr(http.StatusUnauthorized, "ExpiredAuthenticationToken", "The access token expiry UTC time is earlier than current UTC time.")
	}
	return nil
}
