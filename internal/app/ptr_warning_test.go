package app

import (
	"io"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/config"
)

// --create-ptr with a --domain-filter that names no reverse zone makes no PTR (external-dns's plan
// drops them all without a word): the run says so at start.
func TestCreatePTRWithoutReverseZoneIsTold(t *testing.T) {
	for _, tt := range []struct {
		args []string
		warn bool
	}{
		{[]string{"--domain-filter=example.com"}, true},
		{[]string{"--domain-filter=example.com", "--domain-filter=2.0.192.in-addr.arpa"}, false},
		{[]string{"--domain-filter=example.com", "--domain-filter=ip6.arpa."}, false},
		{nil, false}, // no filter: every zone the provider has
		{[]string{"--regex-domain-filter=.*"}, false},
	} {
		args := append([]string{"--source=service", "--provider=inmemory", "--managed-record-types=A", "--managed-record-types=PTR", "--create-ptr"}, tt.args...)
		cfg, _, err := config.Parse("zonekeeper", args, func(string) string { return "" }, io.Discard)
		if err != nil {
			t.Fatalf("%v: %v", tt.args, err)
		}
		why := ptrWithoutReverseZone(cfg)
		if (why != "") != tt.warn || tt.warn && !strings.Contains(why, "--domain-filter") {
			t.Errorf("%v: %q, want a warning: %v", tt.args, why, tt.warn)
		}
	}
}
