// Package sourcetest holds what the tests of the source packages share.
package sourcetest

import (
	"fmt"
	"sort"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// Describe returns one line per endpoint, sorted: "name TYPE targets resource", then " ttl=N",
// " set=ID" and " property=value" when set. Targets are sorted.
func Describe(eps []*endpoint.Endpoint) []string {
	var out []string
	for _, e := range eps {
		ts := append([]string(nil), e.Targets...)
		sort.Strings(ts)
		s := fmt.Sprintf("%s %s %s %s", e.DNSName, e.RecordType, strings.Join(ts, ","), e.Labels[endpoint.ResourceLabelKey])
		if e.RecordTTL != 0 {
			s += fmt.Sprintf(" ttl=%d", e.RecordTTL)
		}
		if e.SetIdentifier != "" {
			s += " set=" + e.SetIdentifier
		}
		for _, p := range e.ProviderSpecific {
			s += " " + p.Name + "=" + p.Value
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// Problems returns the problems as one string, one per line, for substring checks.
func Problems(ps []endpoint.Problem) string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Error())
	}
	return strings.Join(out, "\n")
}
