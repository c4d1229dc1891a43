package config

import (
	"io"
	"strings"
	"testing"
	"time"
)

// A flag accepted and not applied is reported whether it comes from the command line or from the
// environment, with its reason; one that is not set is not.
func TestNotAppliedFlagsAreReported(t *testing.T) {
	env := map[string]string{"EXTERNAL_DNS_TXT_CACHE_INTERVAL": "1m"}
	cfg, _, err := Parse("zonekeeper", []string{"--source=service", "--provider=inmemory", "--request-timeout=5s"},
		func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(cfg.NotApplied, "\n")
	for _, want := range []string{"--txt-cache-interval: the registry cache", "--request-timeout: not applied"} {
		if !strings.Contains(got, want) {
			t.Errorf("NotApplied = %q, want an entry %q", cfg.NotApplied, want)
		}
	}
	if len(cfg.NotApplied) != 2 {
		t.Errorf("NotApplied = %q, want exactly two entries", cfg.NotApplied)
	}
}

// --provider-cache-time is applied (issue 16): it sets how long the provider's records are trusted, and
// a run that sets it no longer logs it as not applied.
func TestProviderCacheTimeIsApplied(t *testing.T) {
	env := map[string]string{"EXTERNAL_DNS_PROVIDER_CACHE_TIME": "20m"}
	cfg, _, err := Parse("zonekeeper", []string{"--source=service", "--provider=inmemory"}, func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ProviderCacheTime != 20*time.Minute || len(cfg.NotApplied) != 0 {
		t.Fatalf("ProviderCacheTime %s, NotApplied %q; want 20m and nothing", cfg.ProviderCacheTime, cfg.NotApplied)
	}
}
