package config

import (
	"io"
	"strings"
	"testing"
)

// A refused flag set to external-dns's default, or a refused value flag set to "", asks for nothing
// and is accepted (docs/configuration.md promises it); any other value is still refused.
func TestRefusedFlagAtItsDefaultIsAccepted(t *testing.T) {
	base := []string{"--provider=inmemory", "--source=service"}
	for _, arg := range []string{"--compatibility=", "--connector-source-server=localhost:8080",
		"--ovh-api-rate-limit=20", "--exoscale-zones-cache-duration=0s", "--azure-config-file=/etc/kubernetes/azure.json",
		"--rfc2136-load-balancing-strategy=disabled", "--no-cloudflare-proxied", "--target-template="} {
		if _, _, err := Parse("z", append(base, arg), env(nil), io.Discard); err != nil {
			t.Errorf("%s: %v", arg, err)
		}
	}
	for arg, want := range map[string]string{
		"--compatibility=mate":                     "--compatibility: not implemented",
		"--connector-source-server=other:8080":     "--connector-source-server: this source is not part of zonekeeper",
		"--ovh-api-rate-limit=5":                   "--ovh-api-rate-limit: the ovh provider",
		"--exoscale-zones-cache-duration=1m":       "--exoscale-zones-cache-duration: the exoscale provider",
		"--rfc2136-load-balancing-strategy=random": "--rfc2136-load-balancing-strategy: not implemented",
		"--alibaba-cloud-zone-type=private":        "--alibaba-cloud-zone-type: the alibaba-cloud provider",
	} {
		if _, _, err := Parse("z", append(base, arg), env(nil), io.Discard); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error containing %q", arg, err, want)
		}
	}
}
