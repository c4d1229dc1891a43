package google_test

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/config"
)

// The flags are external-dns's, with its defaults, read from the command line and the EXTERNAL_DNS_*
// environment; values out of range are refused naming the flag.
func TestGoogleFlags(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	base := []string{"--source=service", "--provider=google"}
	cfg, _, err := config.Parse("z", append(base, "--google-project=p1", "--google-zone-visibility=private",
		"--google-batch-change-size=50"), env(map[string]string{"EXTERNAL_DNS_GOOGLE_BATCH_CHANGE_INTERVAL": "3s"}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.GoogleProject != "p1" || cfg.GoogleZoneVisibility != "private" || cfg.GoogleBatchChangeSize != 50 || cfg.GoogleBatchChangeInterval != 3*time.Second {
		t.Errorf("parsed %+v", cfg.GoogleFlags)
	}
	cfg, _, err = config.Parse("z", base, env(nil), io.Discard)
	if err != nil || cfg.GoogleBatchChangeSize != 1000 || cfg.GoogleBatchChangeInterval != time.Second || cfg.GoogleZoneVisibility != "" || cfg.GoogleProject != "" {
		t.Errorf("defaults %+v %v", cfg.GoogleFlags, err)
	}
	for arg, want := range map[string]string{
		"--google-zone-visibility=internal":  "--google-zone-visibility=internal: must be public, private or empty",
		"--google-batch-change-size=0":       "--google-batch-change-size=0: must be at least 1",
		"--google-batch-change-interval=-1s": "--google-batch-change-interval: must not be negative",
	} {
		if _, _, err := config.Parse("z", append(base, arg), env(nil), io.Discard); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", arg, err, want)
		}
	}
}
