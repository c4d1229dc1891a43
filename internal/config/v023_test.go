package config

import (
	"io"
	"strings"
	"testing"
	"time"
)

// Every flag external-dns v0.23 added is known: implemented, or refused with the reason.
func TestV023FlagsAreKnown(t *testing.T) {
	cfg, _, err := Parse("z", []string{"--source=service", "--provider=inmemory", "--webhook-provider-read-header-timeout=7s", "--webhook-provider-idle-timeout=1m",
		"--webhook-provider-max-body-size=1024", "--enable-legacy-annotation-prefix"}, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.WebhookProviderReadHeaderTimeout != 7*time.Second || cfg.WebhookProviderIdleTimeout != time.Minute || cfg.WebhookProviderMaxBodySize != 1024 || cfg.EnableLegacyAnnotationPrefix != "true" {
		t.Errorf("parsed %+v", cfg)
	}
	cfg, _, err = Parse("z", []string{"--source=service", "--provider=inmemory", "--registry=crd", "--crd-registry-namespace=dns"}, func(string) string { return "" }, io.Discard)
	if err == nil {
		err = cfg.Validate()
	}
	if err != nil || cfg.Registry != "crd" || cfg.CRDRegistryNamespace != "dns" {
		t.Errorf("--registry=crd --crd-registry-namespace=dns: %v %q %q", err, cfg.Registry, cfg.CRDRegistryNamespace)
	}
	for args, want := range map[string]string{
		"--exoscale-zones-cache-duration=1m":                               "--exoscale-zones-cache-duration: the exoscale provider",
		"--annotation-prefix=custom.io/ --enable-legacy-annotation-prefix": "--enable-legacy-annotation-prefix with --annotation-prefix=custom.io/",
		"--crd-registry-namespace=dns":                                     "--crd-registry-namespace needs --registry=crd",
		"--registry=crd --txt-owner-id=":                                   "--txt-owner-id must not be empty: --registry=crd",
		"--registry=crd --view=lan":                                        "--registry=crd with --view",
		"--rfc2136-tsig-axfr=false":                                        "--rfc2136-tsig-axfr=false (or --rfc2136-axfr=false): zonekeeper always reads its zones by AXFR",
		"--no-rfc2136-axfr":                                                "zonekeeper always reads its zones by AXFR",
		"--webhook-provider-max-body-size=-1":                              "--webhook-provider-max-body-size must not be negative",
		"--guard-max-delete-fraction=1.5":                                  "--guard-max-delete-fraction=1.5: want a share between 0 and 1",
	} {
		cfg, _, err := Parse("z", append([]string{"--source=service", "--provider=inmemory"}, strings.Fields(args)...), func(string) string { return "" }, io.Discard)
		if err == nil {
			err = cfg.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", args, err, want)
		}
	}
}
