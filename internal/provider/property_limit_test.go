package provider

import (
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// A property limited to some record types refuses a record of another type that asks for it, and
// nothing else: not the value that asks for nothing, not an allowed type, not an empty value.
func TestCapabilitiesRefusePropertyOutsideItsTypes(t *testing.T) {
	c := Capabilities{RecordTypes: []string{"A", "TXT", "MX"}, Properties: []PropertyLimit{
		{Name: "x/proxied", Off: []string{"false"}, RecordTypes: []string{"A"}, Reason: "proxied applies to A only"},
		{Name: "x/feature", Reason: "not supported yet"},
	}}
	for e, want := range map[*endpoint.Endpoint]string{
		endpoint.New("a.example.com", "A", "192.0.2.1").WithProviderSpecific("x/proxied", "true"):   "",
		endpoint.New("a.example.com", "TXT", "v").WithProviderSpecific("x/proxied", "true"):         "x/proxied=true: proxied applies to A only",
		endpoint.New("a.example.com", "TXT", "v").WithProviderSpecific("x/proxied", "false"):        "",
		endpoint.New("a.example.com", "MX", "10 mx").WithProviderSpecific("x/proxied", " "):         "",
		endpoint.New("a.example.com", "A", "192.0.2.1").WithProviderSpecific("x/feature", "eu"):     "x/feature=eu: not supported yet",
		endpoint.New("a.example.com", "A", "192.0.2.1").WithProviderSpecific("other/feature", "eu"): "",
	} {
		if got := c.Refuses(e); got != want {
			t.Errorf("%s %s %v: %q, want %q", e.DNSName, e.RecordType, e.ProviderSpecific, got, want)
		}
	}
}
