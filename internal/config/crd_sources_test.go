package config

import (
	"io"
	"strings"
	"testing"
)

// The flags of the traefik-proxy source are honoured (external-dns v0.21's names), and a traefik-proxy
// source left with no API group to read is refused.
func TestCRDSourceFlags(t *testing.T) {
	base := []string{"--provider=inmemory", "--source=traefik-proxy"}
	cfg, _, err := Parse("z", append(base, "--traefik-enable-legacy", "--traefik-disable-new"), env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.TraefikEnableLegacy || !cfg.TraefikDisableNew {
		t.Errorf("flags not read: %+v %+v", cfg.TraefikEnableLegacy, cfg.TraefikDisableNew)
	}
	cfg, _, err = Parse("z", base, env(map[string]string{"EXTERNAL_DNS_TRAEFIK_ENABLE_LEGACY": "true"}), io.Discard)
	if err != nil || !cfg.TraefikEnableLegacy || cfg.TraefikDisableNew {
		t.Errorf("from the environment: %v %+v", err, cfg)
	}
	_, _, err = Parse("z", append(base, "--traefik-disable-new"), env(nil), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "--traefik-disable-new without --traefik-enable-legacy") {
		t.Errorf("traefik-proxy with no group to read: %v", err)
	}
	if _, _, err := Parse("z", []string{"--provider=inmemory", "--source=service", "--traefik-disable-new"}, env(nil), io.Discard); err != nil {
		t.Errorf("--traefik-disable-new without the traefik-proxy source: %v", err)
	}
}

// --openshift-router-name is honoured (it used to be refused while the source was missing).
func TestOpenShiftRouterNameFlag(t *testing.T) {
	base := []string{"--provider=inmemory", "--source=openshift-route"}
	cfg, _, err := Parse("z", append(base, "--openshift-router-name=edge"), env(nil), io.Discard)
	if err != nil || cfg.OpenShiftRouterName != "edge" {
		t.Errorf("--openshift-router-name=edge: %v %q", err, cfg.OpenShiftRouterName)
	}
	cfg, _, err = Parse("z", base, env(map[string]string{"EXTERNAL_DNS_OPENSHIFT_ROUTER_NAME": "r2"}), io.Discard)
	if err != nil || cfg.OpenShiftRouterName != "r2" {
		t.Errorf("from the environment: %v %q", err, cfg.OpenShiftRouterName)
	}
}
