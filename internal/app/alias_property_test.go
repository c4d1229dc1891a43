package app

import (
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

const aliasService = `apiVersion: v1
kind: Service
metadata:
  name: lb
  namespace: default
  annotations:
    external-dns.alpha.kubernetes.io/hostname: lb.example.com
    external-dns.alpha.kubernetes.io/alias: "true"
spec:
  type: LoadBalancer
  ports: [{name: http, port: 80}]
status: {loadBalancer: {ingress: [{hostname: k8s-default-lb-3333333333.us-east-1.elb.amazonaws.com}]}}
`

// The alias annotation is read by Route 53 and a webhook's server only (external-dns keeps it for
// every provider, and the others rewrote its record after every listing): with --provider=inmemory
// it is a problem naming the annotation; with a view published through a webhook provider it is not,
// and that view's server is sent it; with --provider=aws it is not, and it still makes the CNAME an
// alias under --aws-prefer-cname.
func TestPlanReportsAliasOnlyWhenNoViewsProviderReadsIt(t *testing.T) {
	spy, url, run := planOverManifest(t, aliasService)
	const aliasProblem = "field=metadata.annotations[external-dns.alpha.kubernetes.io/alias] value=true reason=\"read only by --provider=aws, --provider=webhook; "
	t.Run("inmemory", func(t *testing.T) {
		_, errOut := run(t, "--provider=inmemory", "--inmemory-zone=example.com")
		if want := aliasProblem + "--provider=inmemory does not read it: not applied\""; !strings.Contains(errOut, want) {
			t.Errorf("no problem %s:\n%s", want, errOut)
		}
	})
	t.Run("inmemory and a webhook view", func(t *testing.T) {
		_, errOut := run(t, "--provider=inmemory", "--inmemory-zone=example.com", "--view=inside", "--view=outside",
			"--view-provider=outside=webhook", "--webhook-provider-url="+url)
		if strings.Contains(errOut, "annotations[external-dns.alpha.kubernetes.io/alias]") {
			t.Errorf("alias reported, yet the webhook view's provider reads it:\n%s", errOut)
		}
		spy.mu.Lock()
		defer spy.mu.Unlock()
		if !slices.Equal(spy.names, []string{"alias"}) {
			t.Errorf("the webhook view's provider was sent properties %q, want alias", spy.names)
		}
	})
	t.Run("aws", func(t *testing.T) {
		emu := route53emu.New(route53emu.Options{})
		hs := httptest.NewServer(emu)
		t.Cleanup(hs.Close)
		if _, err := emu.Seed(route53emu.Seed{Zones: []route53emu.SeedZone{{Name: "example.com"}}}); err != nil {
			t.Fatal(err)
		}
		for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": "AKIDPLAN", "AWS_SECRET_ACCESS_KEY": "plan-secret", "AWS_REGION": "us-east-1",
			"AWS_EC2_METADATA_DISABLED": "true", "AWS_CONFIG_FILE": "/nonexistent", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent",
			"AWS_ENDPOINT_URL_ROUTE_53": hs.URL, "AWS_ENDPOINT_URL_STS": hs.URL, "AWS_PROFILE": "", "AWS_ENDPOINT_URL": ""} {
			t.Setenv(k, v)
		}
		out, errOut := run(t, "--provider=aws", "--domain-filter=example.com", "--aws-prefer-cname")
		if strings.Contains(errOut, "annotations[external-dns.alpha.kubernetes.io/alias]") {
			t.Errorf("alias reported with --provider=aws:\n%s", errOut)
		}
		// Without alias reaching Route 53, --aws-prefer-cname keeps a CNAME.
		if want := "CREATE  lb.example.com A k8s-default-lb-3333333333.us-east-1.elb.amazonaws.com"; !strings.Contains(out, want) || strings.Contains(out, " CNAME ") {
			t.Errorf("plan %s: want the alias %s", out, want)
		}
	})
}
