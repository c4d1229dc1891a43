package deploy

import (
	"strings"
	"testing"
)

// The home-lab split horizon of docs/split-horizon.md: the internal view in CoreDNS (provider.name),
// the external view in Cloudflare (views[].provider), the token from a Secret.
const viewsCloudflareValues = `
provider:
  name: coredns
domainFilters: [example.com]
txtOwnerId: home
views:
  - name: internal
    coreDNSPrefix: /skydns/
  - name: external
    provider: cloudflare
    targets: public
    excludeDomains: [lan.example.com]
publicAddress:
  echoURL: https://ipv4.icanhazip.com
cloudflare:
  apiTokenSecretRef: {name: cloudflare-api-token, key: token}
  proxied: true
`

// Issue 13 part 2 item 3: a view published in Cloudflare while provider.name is another kind gets
// --view-provider, the Cloudflare flags and the token from the Secret, and zonekeeper parses the
// command line; two views on Cloudflare, another kind per view, and a CoreDNS prefix on the
// Cloudflare view are refused at render, naming the value.
func TestChartCloudflareExternalView(t *testing.T) {
	ctr := container(t, deployment(t, mustHelmTemplate(t, chartRender{release: "home", namespace: "dns", values: viewsCloudflareValues})))
	wantArgs(t, ctr.Args, "--provider=coredns", "--view=internal", "--view-coredns-prefix=internal=/skydns/",
		"--view=external", "--view-provider=external=cloudflare", "--view-targets=external=public",
		"--view-exclude-domains=external=lan.example.com", "--cloudflare-proxied", "--public-ip-echo-url=https://ipv4.icanhazip.com")
	wantSecretEnv(t, ctr, "CF_API_TOKEN", "cloudflare-api-token", "token")
	wantParses(t, ctr.Args, map[string]string{"CF_API_TOKEN": "from-the-secret"})

	for name, c := range map[string]struct {
		set  []string
		want string
	}{
		"two views on cloudflare": {[]string{"views[0].provider=cloudflare"},
			"views internal, external: one Cloudflare account holds one copy of its zones"},
		"another kind per view": {[]string{"views[0].provider=pdns"}, `views[0].provider "pdns": the chart publishes a view in cloudflare`},
		"prefix on the cloudflare view": {[]string{"views[1].coreDNSPrefix=/external/"},
			"views[1] (external): coreDNSPrefix, subnets and rfc2136 place a view in coredns, builtin or rfc2136, not in its provider cloudflare"},
		"no credentials": {[]string{"cloudflare.apiTokenSecretRef.name=", "cloudflare.apiTokenSecretRef.key="},
			"provider cloudflare needs credentials"},
	} {
		_, err := helmTemplate(t, chartRender{release: "home", namespace: "dns", values: viewsCloudflareValues, set: c.set})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: render error %v, want %q", name, err, c.want)
		}
	}
}
