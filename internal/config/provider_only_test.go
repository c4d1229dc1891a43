package config

import (
	"io"
	"slices"
	"strings"
	"testing"
)

// --batch-change-size and --batch-change-interval are read by --provider=cloudflare only; with another
// provider they are reported as not applied, from the command line or the environment.
func TestProviderOnlyFlagsReportedWithOtherProviders(t *testing.T) {
	cfg, _, err := Parse("z", []string{"--source=service", "--provider=inmemory", "--batch-change-size=10"},
		env(map[string]string{"EXTERNAL_DNS_BATCH_CHANGE_INTERVAL": "5s"}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"--batch-change-size: only --provider=cloudflare", "--batch-change-interval: only --provider=cloudflare"} {
		if !slices.ContainsFunc(cfg.NotApplied, func(s string) bool { return strings.HasPrefix(s, f) }) {
			t.Errorf("NotApplied = %q, want %q", cfg.NotApplied, f)
		}
	}
	cfg, _, err = Parse("z", []string{"--source=service", "--provider=cloudflare", "--batch-change-size=10"}, env(nil), io.Discard)
	if err != nil || len(cfg.NotApplied) != 0 || cfg.CloudflareBatchChangeSize != 10 {
		t.Errorf("with cloudflare: NotApplied %q, size %d, %v", cfg.NotApplied, cfg.CloudflareBatchChangeSize, err)
	}
}
