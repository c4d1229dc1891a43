package config

import (
	"io"
	"strings"
	"testing"
)

// TestTargetTemplatesAreRepeatableAndLoggedWhereUnused: --target-template and --fqdn-target-template
// are accepted (they were refused before), repeated values are joined with a comma as external-dns
// v0.22+ joins them, and a run whose sources apply neither logs that they are not applied.
func TestTargetTemplatesAreRepeatableAndLoggedWhereUnused(t *testing.T) {
	cfg, _, err := Parse("z", []string{"--provider=inmemory", "--source=traefik-proxy",
		"--target-template={{.Name}}.lb.example.net", "--target-template=192.0.2.1",
		"--fqdn-target-template=a.example.com:192.0.2.2", "--fqdn-target-template=b.example.com:192.0.2.3"}, env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.TargetTemplate != "{{.Name}}.lb.example.net,192.0.2.1" || cfg.FQDNTargetTemplate != "a.example.com:192.0.2.2,b.example.com:192.0.2.3" {
		t.Errorf("joined: %q %q", cfg.TargetTemplate, cfg.FQDNTargetTemplate)
	}
	if len(cfg.NotApplied) != 0 {
		t.Errorf("not applied with traefik-proxy: %q", cfg.NotApplied)
	}
	cfg, _, err = Parse("z", []string{"--provider=inmemory", "--source=ingress", "--source=service",
		"--target-template=192.0.2.1", "--fqdn-target-template=a.example.com:192.0.2.2"}, env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(cfg.NotApplied, "\n")
	if !strings.Contains(got, "--target-template: not applied: none of the sources given uses it (it applies to gloo-proxy, traefik-proxy, f5-virtualserver, f5-transportserver)") ||
		strings.Contains(got, "--fqdn-target-template") {
		t.Errorf("not applied with ingress and service:\n%s", got)
	}
}
