package traefik

import (
	"reflect"
	"testing"
)

// The names external-dns v0.21 reads from router rules, case by case.
func TestRuleHosts(t *testing.T) {
	for rule, want := range map[string][]string{
		"Host(`a.example.com`)":                                     {"a.example.com"},
		"Host(`a.example.com`, `b.example.com`)":                    {"a.example.com", "b.example.com"},
		"Host(`a.example.com`,`b.example.com`) && PathPrefix(`/x`)": {"a.example.com", "b.example.com"},
		"Host(`a.example.com`) || Host(`b.example.com`)":            {"a.example.com", "b.example.com"},
		"Host ( `a.example.com` ) && Path(`/`)":                     {"a.example.com"},
		"HostSNI(`*`)":                                              nil,
		"HostSNI(`tcp.example.com`)":                                {"tcp.example.com"},
		"HostHeader(`h.example.com`)":                               {"h.example.com"},
		"HostRegexp(`^.+\\.example\\.com$`)":                        nil,
		"HostSNIRegexp(`^x$`) || HostSNI(`y.example.com`)":          {"y.example.com"},
		"PathPrefix(`/api`)":                                        nil,
		"Host(`a.example.com,b.example.com`)":                       nil,
		"Host(``)":                                                  nil,
		"Host(`a.example.com`\n)":                                   {"a.example.com"},
		"Host(`a.example.com\n`)":                                   nil,
		"Host(`a.example.com`":                                      nil,
		"host(`a.example.com`)":                                     nil,
		"Host(`a.example.com`) && Header(`X`, `y`) || Host(`c`)":    {"a.example.com", "c"},
		"Host(`a`) && Path(`/p`)) || Host(`b`)":                     {"a", "b"},
		"Host(`a`, Path(`/p`))":                                     {"a", "/p"},
		"Host(`a`, Path(`/p`)`)":                                    {"a", "/p"},
		"HostHost(`z`)":                                             {"z"},
		"Host(`*`, `w.example.com`)":                                {"w.example.com"},
	} {
		if got := ruleHosts(rule); !reflect.DeepEqual(got, want) {
			t.Errorf("%q: got %q, want %q", rule, got, want)
		}
	}
}
