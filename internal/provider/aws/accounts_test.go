package aws

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

// Several --aws-profile: two accounts (two emulators, each reached through its profile's
// endpoint_url and keys in the shared files). Each account's zones are listed with its credentials,
// a change goes to the account holding the zone, and each account has its own rate limiter.
func TestSeveralProfilesManageTheirAccounts(t *testing.T) {
	staticCredentials(t)
	srvA, urlA := emulator(t, route53emu.Options{AccountID: "111111111111"})
	srvB, urlB := emulator(t, route53emu.Options{AccountID: "222222222222"})
	seed(t, srvA, route53emu.SeedZone{Name: "example.com"})
	seed(t, srvB, route53emu.SeedZone{Name: "example.org"})
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Setenv("AWS_CONFIG_FILE", write("config", fmt.Sprintf(
		"[profile team-a]\nregion = us-east-1\nendpoint_url = %s\n[profile team-b]\nregion = us-east-1\nendpoint_url = %s\n", urlA, urlB)))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", write("credentials",
		"[team-a]\naws_access_key_id = AKIDTEAMA\naws_secret_access_key = secret-a\n[team-b]\naws_access_key_id = AKIDTEAMB\naws_secret_access_key = secret-b\n"))
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")

	p, err := New(ctxT(t), Config{Profiles: []string{"team-a", "team-b"}, DomainFilter: []string{"example.com", "example.org"},
		RequestsPerSecond: 10000, RetryMaxBackoff: 1})
	if err != nil {
		t.Fatal(err)
	}
	err = p.ApplyChanges(ctxT(t), &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.NewWithTTL("www.example.com", endpoint.RecordTypeA, 60, "192.0.2.1"),
		endpoint.NewWithTTL("www.example.org", endpoint.RecordTypeA, 60, "192.0.2.2"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := dump(srvA, "example.com.")["www.example.com. A "]; !ok {
		t.Errorf("account A: %v", dump(srvA, "example.com."))
	}
	if _, ok := dump(srvB, "example.org.")["www.example.org. A "]; !ok {
		t.Errorf("account B: %v", dump(srvB, "example.org."))
	}
	p.Invalidate()
	recs, err := p.Records(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range recs {
		names = append(names, r.DNSName)
	}
	if got := strings.Join(names, ","); !strings.Contains(got, "www.example.com") || !strings.Contains(got, "www.example.org") {
		t.Errorf("Records lists %s", got)
	}
	if len(p.accounts) != 2 || p.accounts[0].limiter == p.accounts[1].limiter {
		t.Error("the accounts share one rate limiter")
	}
	// Each account got exactly the change to its own zone.
	for name, srv := range map[string]*route53emu.Server{"A": srvA, "B": srvB} {
		if c := srv.Counters().Calls; c["ChangeResourceRecordSets"] != 1 {
			t.Errorf("account %s: %v", name, c)
		}
	}
}
