package route53emu_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

// fakeJWT is an unsigned token with the claims EKS projects for IRSA.
func fakeJWT(t *testing.T, claims map[string]any) string {
	t.Helper()
	enc := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return base64.RawURLEncoding.EncodeToString(b)
	}
	return enc(map[string]string{"alg": "RS256", "kid": "test"}) + "." + enc(claims) + ".c2lnbmF0dXJl"
}

// irsaEnv sets the environment EKS injects for IRSA, with the endpoint
// variables the reference requires (AWS_ENDPOINT_URL_STS: the global URL does
// not reach the STS call made while resolving credentials).
func irsaEnv(t *testing.T, url, token string) {
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{
		"AWS_ROLE_ARN":                "arn:aws:iam::210987654321:role/external-dns",
		"AWS_WEB_IDENTITY_TOKEN_FILE": tokenFile,
		"AWS_ROLE_SESSION_NAME":       "zonekeeper",
		"AWS_REGION":                  "eu-west-1",
		"AWS_ENDPOINT_URL_STS":        url,
		"AWS_ENDPOINT_URL_ROUTE_53":   url,
		"AWS_EC2_METADATA_DISABLED":   "true",
		"AWS_CONFIG_FILE":             filepath.Join(dir, "none"),
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "none"),
		"AWS_ACCESS_KEY_ID":           "",
		"AWS_SECRET_ACCESS_KEY":       "",
		"AWS_SESSION_TOKEN":           "",
		"AWS_PROFILE":                 "",
		"AWS_ENDPOINT_URL":            "",
		"AWS_MAX_ATTEMPTS":            "1",
	} {
		t.Setenv(k, v)
	}
}

func TestIRSAWebIdentityEndToEnd(t *testing.T) {
	e := startEmu(t, route53emu.Options{STS: route53emu.STSOptions{AllowedSubjects: []string{"system:serviceaccount:kube-system:external-dns"}}})
	irsaEnv(t, e.url, fakeJWT(t, map[string]any{"iss": "https://oidc.example", "sub": "system:serviceaccount:kube-system:external-dns", "aud": []string{"sts.amazonaws.com"}}))
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	client := route53.NewFromConfig(cfg)
	if _, err := client.ListHostedZones(ctx, &route53.ListHostedZonesInput{}); err != nil {
		t.Fatalf("ListHostedZones with IRSA credentials: %v", err)
	}
	calls := e.srv.Calls()
	if len(calls) != 2 || calls[0].Operation != "sts:AssumeRoleWithWebIdentity" || calls[1].Operation != "ListHostedZones" ||
		!strings.HasPrefix(calls[1].AccessKeyID, "ASIA") {
		t.Fatalf("calls %+v: want the web identity exchange, then Route 53 signed with its temporary key", calls)
	}
	creds, err := cfg.Credentials.Retrieve(ctx)
	if err != nil || creds.SessionToken == "" || creds.Expires.IsZero() {
		t.Fatalf("credentials: %v %+v", err, creds)
	}
	// The caller identity is the assumed role in the role's account.
	who, err := sts.NewFromConfig(cfg).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil || aws.ToString(who.Account) != "210987654321" || aws.ToString(who.Arn) != "arn:aws:sts::210987654321:assumed-role/external-dns/zonekeeper" {
		t.Fatalf("GetCallerIdentity: %v %+v", err, who)
	}
}

func TestIRSARejectsWrongSubjectAndAudience(t *testing.T) {
	e := startEmu(t, route53emu.Options{STS: route53emu.STSOptions{AllowedSubjects: []string{"system:serviceaccount:kube-system:external-dns"}}})
	for _, tc := range []struct {
		claims map[string]any
		code   string
	}{
		{map[string]any{"sub": "system:serviceaccount:default:intruder", "aud": "sts.amazonaws.com"}, "AccessDenied"},
		{map[string]any{"sub": "system:serviceaccount:kube-system:external-dns", "aud": "other"}, "InvalidIdentityToken"},
	} {
		irsaEnv(t, e.url, fakeJWT(t, tc.claims))
		cfg, err := config.LoadDefaultConfig(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		_, err = route53.NewFromConfig(cfg).ListHostedZones(context.Background(), &route53.ListHostedZonesInput{})
		if err == nil || !strings.Contains(err.Error(), tc.code) {
			t.Fatalf("claims %v: want %s, got %v", tc.claims, tc.code, err)
		}
	}
}

func TestStsCredsProviderAndForgedToken(t *testing.T) {
	e := startEmu(t, route53emu.Options{})
	token := fakeJWT(t, map[string]any{"sub": "system:serviceaccount:a:b", "aud": "sts.amazonaws.com"})
	stsClient := sts.New(sts.Options{Region: "us-east-1", BaseEndpoint: aws.String(e.url)})
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	provider := stscreds.NewWebIdentityRoleProvider(stsClient, "arn:aws:iam::123456789012:role/dns", stscreds.IdentityTokenFile(tokenFile))
	ctx := context.Background()
	creds, err := provider.Retrieve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	good := route53.New(route53.Options{Region: "us-east-1", BaseEndpoint: aws.String(e.url), Credentials: aws.NewCredentialsCache(provider)})
	if _, err := good.ListHostedZones(ctx, &route53.ListHostedZonesInput{}); err != nil {
		t.Fatal(err)
	}
	forged := creds
	forged.SessionToken = creds.SessionToken + "x"
	bad := route53.New(route53.Options{Region: "us-east-1", BaseEndpoint: aws.String(e.url), RetryMaxAttempts: 1,
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) { return forged, nil })})
	_, err = bad.ListHostedZones(ctx, &route53.ListHostedZonesInput{})
	if code, _ := apiError(t, err); code != "InvalidClientTokenId" {
		t.Fatalf("forged session token: %v", err)
	}
}

// TestInjectedAccessDeniedOnSTSNamesTheSTSAction: an AccessDenied fault on
// an STS call words its message as STS does ("sts:AssumeRole", the role as
// the resource; AssumeRoleWithWebIdentity, which is unsigned, without a
// user), not as a Route 53 action "route53:sts:…".
func TestInjectedAccessDeniedOnSTSNamesTheSTSAction(t *testing.T) {
	e := startEmu(t, route53emu.Options{AccountID: "123456789012"})
	for _, op := range []string{"sts:GetCallerIdentity", "sts:AssumeRole", "sts:AssumeRoleWithWebIdentity"} {
		if err := e.srv.AddFault(route53emu.Fault{Operation: op, Code: "AccessDenied"}); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	client := sts.New(sts.Options{Region: "us-east-1", BaseEndpoint: aws.String(e.url), RetryMaxAttempts: 1,
		Credentials: credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", "")})
	_, err := client.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if code, msg := apiError(t, err); code != "AccessDenied" ||
		msg != "User: arn:aws:iam::123456789012:user/AKIDEXAMPLE is not authorized to perform: sts:GetCallerIdentity on resource: *" {
		t.Errorf("GetCallerIdentity: %s %q", code, msg)
	}
	_, err = client.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String("arn:aws:iam::123456789012:role/dns"), RoleSessionName: aws.String("s")})
	if code, msg := apiError(t, err); code != "AccessDenied" ||
		msg != "User: arn:aws:iam::123456789012:user/AKIDEXAMPLE is not authorized to perform: sts:AssumeRole on resource: arn:aws:iam::123456789012:role/dns" {
		t.Errorf("AssumeRole: %s %q", code, msg)
	}
	_, err = client.AssumeRoleWithWebIdentity(ctx, &sts.AssumeRoleWithWebIdentityInput{RoleArn: aws.String("arn:aws:iam::123456789012:role/dns"),
		RoleSessionName: aws.String("s"), WebIdentityToken: aws.String(fakeJWT(t, map[string]any{"sub": "a", "aud": "sts.amazonaws.com"}))})
	if code, msg := apiError(t, err); code != "AccessDenied" || msg != "Not authorized to perform sts:AssumeRoleWithWebIdentity" {
		t.Errorf("AssumeRoleWithWebIdentity: %s %q", code, msg)
	}
}
