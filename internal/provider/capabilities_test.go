package provider

import (
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// Capabilities.Refuses names what a backend lacks: a record type, set identifiers, wildcards.
func TestCapabilitiesRefuse(t *testing.T) {
	c := Capabilities{RecordTypes: []string{"A", "TXT"}}
	for e, want := range map[*endpoint.Endpoint]string{
		endpoint.New("a.example.com", "A", "192.0.2.1"):                        "",
		endpoint.New("a.example.com", "MX", "10 mx.example.com"):               "record type MX is not supported (supported: A, TXT)",
		endpoint.New("a.example.com", "A", "192.0.2.1").WithSetIdentifier("x"): `set identifiers are not supported (set identifier "x")`,
		endpoint.New("*.a.example.com", "A", "192.0.2.1"):                      "wildcard names are not supported",
		endpoint.New("x*.a.example.com", "A", "192.0.2.1"):                     "",
	} {
		if got := c.Refuses(e); got != want {
			t.Errorf("%s %s [%s]: %q, want %q", e.DNSName, e.RecordType, e.SetIdentifier, got, want)
		}
	}
	c.SetIdentifier, c.Wildcards = true, true
	if got := c.Refuses(endpoint.New("*.a.example.com", "A", "192.0.2.1").WithSetIdentifier("x")); got != "" {
		t.Errorf("a backend with set identifiers and wildcards refuses: %s", got)
	}
}
