package aws

import (
	"context"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

// staticCredentials points the SDK's default chain at fixed keys and nothing else: no shared files,
// no instance metadata, no endpoint from the environment.
func staticCredentials(t testing.TB) {
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDZONEKEEPER")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "zonekeeper-test-secret")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent/zonekeeper-aws-config")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/zonekeeper-aws-credentials")
	for _, k := range []string{"AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ROLE_ARN", "AWS_WEB_IDENTITY_TOKEN_FILE",
		"AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_ROUTE_53", "AWS_ENDPOINT_URL_STS", "AWS_MAX_ATTEMPTS", "AWS_RETRY_MODE"} {
		t.Setenv(k, "")
	}
}

// emulator starts a Route 53 emulator on loopback.
func emulator(t testing.TB, opts route53emu.Options) (*route53emu.Server, string) {
	t.Helper()
	srv := route53emu.New(opts)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return srv, hs.URL
}

// newProvider builds a provider against url with test-friendly defaults: no wait between batches, a
// high client-side rate and short retry backoff, unless cfg says otherwise.
func newProvider(t testing.TB, url string, cfg Config) *Provider {
	t.Helper()
	cfg.Endpoint = url
	if cfg.RequestsPerSecond == 0 && cfg.Limiter == nil {
		cfg.RequestsPerSecond = 10000
	}
	if cfg.RetryMaxBackoff == 0 {
		cfg.RetryMaxBackoff = 10 * time.Millisecond
	}
	p, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func seed(t testing.TB, srv *route53emu.Server, zones ...route53emu.SeedZone) []route53emu.SeededZone {
	t.Helper()
	out, err := srv.Seed(route53emu.Seed{Zones: zones})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// dump returns the zone's record sets as "name type setid ttl values|alias" strings, SOA and NS left out.
func dump(srv *route53emu.Server, zoneName string) map[string]route53emu.RecordSet {
	out := map[string]route53emu.RecordSet{}
	for _, z := range srv.Dump() {
		if z.Name != zoneName && z.Name != zoneName+"." {
			continue
		}
		for _, rs := range z.Records {
			if rs.Type == "SOA" || rs.Type == "NS" {
				continue
			}
			id := ""
			if rs.SetIdentifier != nil {
				id = *rs.SetIdentifier
			}
			out[rs.Name+" "+rs.Type+" "+id] = rs
		}
	}
	return out
}

func ep(name, recordType string, ttl endpoint.TTL, targets ...string) *endpoint.Endpoint {
	return endpoint.NewWithTTL(name, recordType, ttl, targets...)
}

func num(n int64) *route53emu.Number { return route53emu.NumberOf(n) }

func values(vs ...string) *route53emu.ResourceRecords {
	rr := &route53emu.ResourceRecords{}
	for _, v := range vs {
		rr.Items = append(rr.Items, route53emu.ResourceRecord{Value: v})
	}
	return rr
}

func upserts(rr *r53types.ResourceRecordSet) []r53types.Change {
	return []r53types.Change{{Action: r53types.ChangeActionUpsert, ResourceRecordSet: rr}}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
