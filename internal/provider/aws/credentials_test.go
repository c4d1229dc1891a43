package aws

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

// webIdentityToken writes a projected service account token (unsigned: the emulator checks claims).
func webIdentityToken(t testing.TB, sub string) string {
	t.Helper()
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	jwt := enc(map[string]string{"alg": "RS256", "typ": "JWT"}) + "." +
		enc(map[string]any{"aud": []string{"sts.amazonaws.com"}, "sub": sub, "iss": "https://oidc.eks.test/id/X"}) + ".c2ln"
	path := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(path, []byte(jwt), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// syncOne lists and writes one record, and returns the access keys Route 53 saw.
func syncOne(t *testing.T, srv *route53emu.Server, p *Provider) map[string]bool {
	t.Helper()
	if _, err := p.Records(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if err := p.ApplyChanges(ctxT(t), &plan.Changes{Create: []*endpoint.Endpoint{ep("irsa.example.com", "A", 60, "10.0.0.1")}}); err != nil {
		t.Fatal(err)
	}
	if _, ok := dump(srv, "example.com.")["irsa.example.com. A "]; !ok {
		t.Fatal("record not written")
	}
	keys := map[string]bool{}
	for _, c := range srv.Calls() {
		if c.Operation != "" && !strings.HasPrefix(c.Operation, "sts:") && c.AccessKeyID != "" {
			keys[c.AccessKeyID] = true
		}
	}
	return keys
}

// IRSA: with AWS_ROLE_ARN and AWS_WEB_IDENTITY_TOKEN_FILE and no keys, the SDK's chain exchanges the
// token at the (emulated) STS and Route 53 sees only the temporary key.
func TestIRSA(t *testing.T) {
	staticCredentials(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	srv, url := emulator(t, route53emu.Options{STS: route53emu.STSOptions{AllowedSubjects: []string{"system:serviceaccount:kube-system:zonekeeper"}}})
	seed(t, srv, route53emu.SeedZone{Name: "example.com"})
	t.Setenv("AWS_ROLE_ARN", "arn:aws:iam::210987654321:role/zonekeeper")
	t.Setenv("AWS_WEB_IDENTITY_TOKEN_FILE", webIdentityToken(t, "system:serviceaccount:kube-system:zonekeeper"))
	// The endpoint through the environment, as on a cluster: the STS one is needed for IRSA.
	t.Setenv("AWS_ENDPOINT_URL_ROUTE_53", url)
	t.Setenv("AWS_ENDPOINT_URL_STS", url)
	p, err := New(ctxT(t), Config{RequestsPerSecond: 1000})
	if err != nil {
		t.Fatal(err)
	}
	keys := syncOne(t, srv, p)
	if len(keys) != 1 {
		t.Fatalf("Route 53 saw keys %v, want one temporary key", keys)
	}
	for k := range keys {
		if !strings.HasPrefix(k, "ASIA") {
			t.Fatalf("Route 53 was called with %s, not with the web identity session", k)
		}
	}
	if srv.Counters().Calls["sts:AssumeRoleWithWebIdentity"] != 1 {
		t.Fatalf("counters %v: want one AssumeRoleWithWebIdentity", srv.Counters())
	}
}

// A token for another service account is refused by STS: the provider returns the error, it does
// not exit.
func TestIRSARefused(t *testing.T) {
	staticCredentials(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	srv, url := emulator(t, route53emu.Options{STS: route53emu.STSOptions{AllowedSubjects: []string{"system:serviceaccount:kube-system:zonekeeper"}}})
	seed(t, srv, route53emu.SeedZone{Name: "example.com"})
	t.Setenv("AWS_ROLE_ARN", "arn:aws:iam::210987654321:role/zonekeeper")
	t.Setenv("AWS_WEB_IDENTITY_TOKEN_FILE", webIdentityToken(t, "system:serviceaccount:default:intruder"))
	p := newProvider(t, url, Config{})
	if _, err := p.Records(ctxT(t)); err == nil {
		t.Fatal("Records succeeded with a refused identity")
	}
}

// --aws-assume-role with an external id: STS AssumeRole on top of the static keys.
func TestAssumeRole(t *testing.T) {
	staticCredentials(t)
	srv, url := emulator(t, route53emu.Options{})
	seed(t, srv, route53emu.SeedZone{Name: "example.com"})
	p := newProvider(t, url, Config{AssumeRole: "arn:aws:iam::210987654321:role/dns", AssumeRoleExternalID: "zk-ext"})
	keys := syncOne(t, srv, p)
	for k := range keys {
		if k == "AKIDZONEKEEPER" || !strings.HasPrefix(k, "ASIA") {
			t.Fatalf("Route 53 was called with %s, not with the assumed role", k)
		}
	}
	if srv.Counters().Calls["sts:AssumeRole"] != 1 {
		t.Fatalf("counters %v: want one AssumeRole", srv.Counters())
	}
}
