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

// --skipper-routegroup-groupversion is honoured (it used to be refused while the source was missing); a
// value that is not <group>/<version> is refused with --source=skipper-routegroup, and ignored without it,
// as external-dns ignores it.
func TestSkipperRouteGroupVersionFlag(t *testing.T) {
	base := []string{"--provider=inmemory", "--source=skipper-routegroup"}
	cfg, _, err := Parse("z", append(base, "--skipper-routegroup-groupversion=zalando.org/v2"), env(nil), io.Discard)
	if err != nil || cfg.SkipperRouteGroupVersion != "zalando.org/v2" {
		t.Errorf("--skipper-routegroup-groupversion=zalando.org/v2: %v %q", err, cfg.SkipperRouteGroupVersion)
	}
	cfg, _, err = Parse("z", base, env(map[string]string{"EXTERNAL_DNS_SKIPPER_ROUTEGROUP_GROUPVERSION": "routing.example.org/v1"}), io.Discard)
	if err != nil || cfg.SkipperRouteGroupVersion != "routing.example.org/v1" {
		t.Errorf("from the environment: %v %q", err, cfg.SkipperRouteGroupVersion)
	}
	_, _, err = Parse("z", append(base, "--skipper-routegroup-groupversion=v1"), env(nil), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "--skipper-routegroup-groupversion=v1: want <group>/<version>") {
		t.Errorf("a version without a group: %v", err)
	}
	if _, _, err := Parse("z", []string{"--provider=inmemory", "--source=service", "--skipper-routegroup-groupversion=v1"}, env(nil), io.Discard); err != nil {
		t.Errorf("without the skipper-routegroup source: %v", err)
	}
}
