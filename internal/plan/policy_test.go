package plan

import (
	"strings"
	"testing"
)

func TestParsePolicy(t *testing.T) {
	for _, s := range []string{"sync", "upsert-only", "create-only"} {
		p, err := ParsePolicy(s)
		if err != nil || string(p) != s {
			t.Errorf("ParsePolicy(%q) = %q, %v", s, p, err)
		}
	}
	for _, s := range []string{"", "Sync", "upsert", "delete-all"} {
		_, err := ParsePolicy(s)
		if err == nil {
			t.Errorf("ParsePolicy(%q) accepted", s)
			continue
		}
		if !strings.Contains(err.Error(), "upsert-only") {
			t.Errorf("ParsePolicy(%q) error %q does not list the valid policies", s, err)
		}
	}
}
