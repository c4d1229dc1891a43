package app

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

// zonekeeper plan says what applying the plan costs in API calls (issue 16), counted as the provider
// packs its batches: 600 hostnames with their ownership TXTs at --aws-batch-change-size=500 are 3
// ChangeResourceRecordSets; the plan itself writes nothing.
func TestPlanShowsItsAPICost(t *testing.T) {
	srv := route53emu.New(route53emu.Options{})
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	if _, err := srv.Seed(route53emu.Seed{Zones: []route53emu.SeedZone{{Name: "example.com"}}}); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": "AKIDPLAN", "AWS_SECRET_ACCESS_KEY": "plan-secret", "AWS_REGION": "us-east-1",
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_CONFIG_FILE": "/nonexistent", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent",
		"AWS_ENDPOINT_URL_ROUTE_53": hs.URL, "AWS_ENDPOINT_URL_STS": hs.URL, "AWS_PROFILE": "", "AWS_ENDPOINT_URL": ""} {
		t.Setenv(k, v)
	}
	var hosts []string
	for i := range 600 {
		hosts = append(hosts, "h"+strings.Repeat("x", i%3)+itoa(i)+".example.com")
	}
	dir := t.TempDir()
	doc := "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: default\n  annotations:\n    external-dns.alpha.kubernetes.io/hostname: " +
		strings.Join(hosts, ",") + "\nspec:\n  type: LoadBalancer\nstatus:\n  loadBalancer:\n    ingress: [{ip: 192.0.2.5}]\n"
	if err := os.WriteFile(filepath.Join(dir, "svc.yaml"), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := Main(context.Background(), []string{"plan", "--source=manifest", "--manifest=" + dir, "--provider=aws",
		"--domain-filter=example.com", "--aws-batch-change-size=500", "--txt-owner-id=plan"}, &out, &errOut, func(string) string { return "" })
	if code != ExitHasChanges {
		t.Fatalf("zonekeeper plan exited %d:\n%s\n%s", code, out.String(), errOut.String())
	}
	if want := "Applying this plan costs 3 API call(s) (ChangeResourceRecordSets) in 1 zone(s)."; !strings.Contains(out.String(), want) {
		t.Fatalf("no cost line %q in:\n%s", want, out.String()[max(0, out.Len()-600):])
	}
	if n := srv.Counters().Calls["ChangeResourceRecordSets"]; n != 0 {
		t.Fatalf("the plan wrote: %d ChangeResourceRecordSets", n)
	}
}
