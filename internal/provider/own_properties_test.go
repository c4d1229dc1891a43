package provider

import (
	"fmt"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

func TestReadsProperty(t *testing.T) {
	cloudflare := []string{"cloudflare/", "*/cloudflare-proxied"}
	for _, c := range []struct {
		reads []string
		name  string
		want  bool
	}{
		{nil, "alias", false}, // un-namespaced, yet a provider's: only the kinds declaring it
		{[]string{"aws/", "alias"}, "alias", true},
		{[]string{"webhook/", "alias"}, "aws/alias", false},
		{[]string{"*/alias"}, "alias", false},
		{nil, "record-type", true}, // no provider's (the PTR stage takes it off): passes
		{nil, "cloudflare/proxied", false},
		{[]string{"aws/"}, "aws/weight", true},
		{[]string{"aws/"}, "awsx/weight", false},
		{[]string{"aws/"}, "cloudflare/proxied", false},
		{cloudflare, "cloudflare/proxied", true},
		{cloudflare, "external-dns.alpha.kubernetes.io/cloudflare-proxied", true},
		{cloudflare, "custom.example/cloudflare-proxied", true},
		{cloudflare, "external-dns.alpha.kubernetes.io/cloudflare-tags", false},
		{cloudflare, "cloudflare-proxied", true}, // no "/": not namespaced
	} {
		if got := ReadsProperty(c.reads, c.name); got != c.want {
			t.Errorf("ReadsProperty(%q, %q) = %v, want %v", c.reads, c.name, got, c.want)
		}
	}
}

// The drop copies only the endpoints that lose a property, never modifies its argument, and returns
// the argument itself when nothing goes.
func TestWithoutForeignProperties(t *testing.T) {
	plain := endpoint.New("a.example.com", "A", "192.0.2.1").WithProviderSpecific("alias", "true").WithProviderSpecific("aws/weight", "1")
	reads := []string{"aws/", "alias"}
	foreign := endpoint.New("b.example.com", "A", "192.0.2.2").WithProviderSpecific("cloudflare/proxied", "true").
		WithProviderSpecific("aws/weight", "2").WithProviderSpecific("scw/x", "y")
	in := []*endpoint.Endpoint{plain, foreign}
	if out := WithoutForeignProperties(in[:1], reads); &out[0] != &in[0] {
		t.Error("nothing dropped, yet the slice was copied")
	}
	out := WithoutForeignProperties(in, reads)
	if out[0] != plain {
		t.Error("an endpoint that keeps every property was copied")
	}
	if got := fmt.Sprint(out[1].ProviderSpecific); got != "[{aws/weight 2}]" {
		t.Errorf("kept %s, want [{aws/weight 2}]", got)
	}
	if got := fmt.Sprint(WithoutForeignProperties(in[:1], []string{"coredns/"})[0].ProviderSpecific); got != "[]" {
		t.Errorf("a kind reading neither alias nor aws/ is sent %s", got)
	}
	if len(foreign.ProviderSpecific) != 3 || in[1] != foreign {
		t.Errorf("the argument was modified: %v", foreign.ProviderSpecific)
	}
}
