package googlednsemu

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

func jwt(t *testing.T, claims map[string]any) string {
	t.Helper()
	enc := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return base64.RawURLEncoding.EncodeToString(b)
	}
	return enc(map[string]string{"alg": "RS256", "typ": "JWT"}) + "." + enc(claims) + ".c2ln"
}

// TestTokenEndpoint: a JWT-bearer grant gets a bearer token that the API
// accepts until it expires; bad grants get OAuth2 errors; API calls without
// a valid token get 401 in Google's envelope.
func TestTokenEndpoint(t *testing.T) {
	now := time.Date(2026, 11, 26, 7, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	emu := New(Options{Now: clock, StaticTokens: []string{"static"}})
	if err := emu.AddProject(testProject); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(emu)
	defer srv.Close()
	good := map[string]any{"iss": "sa@p.iam.gserviceaccount.com", "scope": ScopeReadOnly, "aud": srv.URL + "/token",
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
	post := func(form url.Values) (int, map[string]any) {
		resp, err := http.PostForm(srv.URL+"/token", form)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, out
	}
	status, out := post(url.Values{"grant_type": {jwtBearerGrant}, "assertion": {jwt(t, good)}})
	token, _ := out["access_token"].(string)
	if status != 200 || token == "" || out["token_type"] != "Bearer" || out["expires_in"] != 3600.0 {
		t.Fatalf("token: %d %v", status, out)
	}
	list := "/dns/v1/projects/" + testProject + "/managedZones"
	if status, env := call(t, srv.URL, "GET", list, token, ""); status != 200 {
		t.Fatalf("list with the token: %d %+v", status, env)
	}
	if status, _ := call(t, srv.URL, "GET", list, "static", ""); status != 200 {
		t.Fatalf("static token: %d", status)
	}
	for name, c := range map[string]struct {
		form url.Values
		code string
	}{
		"password grant": {url.Values{"grant_type": {"password"}}, "unsupported_grant_type"},
		"not a JWT":      {url.Values{"grant_type": {jwtBearerGrant}, "assertion": {"abc"}}, "invalid_grant"},
		"expired":        {url.Values{"grant_type": {jwtBearerGrant}, "assertion": {jwt(t, with(good, "exp", now.Add(-time.Minute).Unix()))}}, "invalid_grant"},
		"too long":       {url.Values{"grant_type": {jwtBearerGrant}, "assertion": {jwt(t, with(good, "exp", now.Add(2*time.Hour).Unix()))}}, "invalid_grant"},
		"no scope":       {url.Values{"grant_type": {jwtBearerGrant}, "assertion": {jwt(t, with(good, "scope", ""))}}, "invalid_grant"},
		"no issuer":      {url.Values{"grant_type": {jwtBearerGrant}, "assertion": {jwt(t, with(good, "iss", ""))}}, "invalid_grant"},
	} {
		if status, out := post(c.form); status != 400 || out["error"] != c.code || out["error_description"] == "" {
			t.Errorf("%s: %d %v, want 400 %s", name, status, out, c.code)
		}
	}
	if status, env := call(t, srv.URL, "GET", list, "", ""); status != 401 || env.Error.Status != "UNAUTHENTICATED" {
		t.Errorf("no token: %d %+v", status, env.Error)
	}
	if status, env := call(t, srv.URL, "GET", list, "ya29.forged", ""); status != 401 || env.Error.Errors[0].Reason != "authError" {
		t.Errorf("unknown token: %d %+v", status, env.Error)
	}
	now = now.Add(time.Hour)
	if status, env := call(t, srv.URL, "GET", list, token, ""); status != 401 || !strings.Contains(env.Error.Message, "invalid authentication credentials") {
		t.Errorf("expired token: %d %+v", status, env.Error)
	}
}

func with(m map[string]any, k string, v any) map[string]any {
	out := map[string]any{}
	for kk, vv := range m {
		out[kk] = vv
	}
	out[k] = v
	return out
}
