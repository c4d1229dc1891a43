package plan

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
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

// Changes the policy forbids on our own records are reported as held, so users see why a record
// stays; foreign records are never in the list.
func TestHeldByPolicy(t *testing.T) {
	own := func(name, target, resource string) *endpoint.Endpoint {
		return endpoint.NewWithTTL(name, endpoint.RecordTypeA, 300, target).
			WithLabel(endpoint.OwnerLabelKey, "me").WithLabel(endpoint.ResourceLabelKey, resource)
	}
	current := []*endpoint.Endpoint{
		own("gone.example.com", "192.0.2.1", "ingress/default/gone"),
		own("moved.example.com", "192.0.2.2", "ingress/default/moved"),
		endpoint.NewWithTTL("theirs.example.com", endpoint.RecordTypeA, 300, "192.0.2.3").WithLabel(endpoint.OwnerLabelKey, "other"),
	}
	desired := []*endpoint.Endpoint{
		endpoint.NewWithTTL("moved.example.com", endpoint.RecordTypeA, 300, "192.0.2.20").WithLabel(endpoint.ResourceLabelKey, "ingress/default/moved"),
	}
	describe := func(hs []HeldChange) string {
		var out []string
		for _, h := range hs {
			out = append(out, fmt.Sprintf("%s %s %s", h.Action, h.Key.DNSName, h.Resource))
		}
		return strings.Join(out, "; ")
	}
	for policy, want := range map[Policy]string{
		PolicySync:       "",
		PolicyUpsertOnly: "DELETE gone.example.com ingress/default/gone",
		PolicyCreateOnly: "DELETE gone.example.com ingress/default/gone; UPDATE moved.example.com ingress/default/moved",
	} {
		r := Calculate(Input{Desired: desired, Current: current, OwnerID: "me", Policy: policy})
		if got := describe(r.HeldByPolicy); got != want {
			t.Errorf("%s: held %q, want %q", policy, got, want)
		}
	}
}
