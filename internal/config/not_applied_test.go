package config

import (
	"io"
	"strings"
	"testing"
)

// A flag accepted and not applied is reported whether it comes from the command line or from the
// environment, with its reason; one that is not set is not.
func TestNotAppliedFlagsAreReported(t *testing.T) {
	env := map[string]string{"EXTERNAL_DNS_PROVIDER_CACHE_TIME": "1m"}
	cfg, _, err := Parse("zonekeeper", []string{"--source=service", "--provider=inmemory", "--request-timeout=5s"},
		func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(cfg.NotApplied, "\n")
	for _, want := range []string{"--provider-cache-time: the registry cache", "--request-timeout: not applied"} {
		if !strings.Contains(got, want) {
			t.Errorf("NotApplied = %q, want an entry %q", cfg.NotApplied, want)
		}
	}
	if len(cfg.NotApplied) != 2 {
		t.Errorf("NotApplied = %q, want exactly two entries", cfg.NotApplied)
	}
}
