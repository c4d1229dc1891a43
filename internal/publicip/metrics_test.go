package publicip

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

func TestPrometheusMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := NewPrometheusMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	d := mustNew(t, Config{Static: []netip.Addr{netip.MustParseAddr("203.0.113.1"), netip.MustParseAddr("2001:db8::1")}, Metrics: m})
	mustRefresh(t, d)
	if err := d.SetStatic(netip.MustParseAddr("203.0.113.2")); err != nil {
		t.Fatal(err)
	}
	mustRefresh(t, d)
	m.LookupFailed("stun 127.0.0.1:3478")
	m.LookupFailed("stun 127.0.0.1:3478")

	got := gatherText(t, reg)
	want := []string{
		`zonekeeper_public_address_info{address="203.0.113.2",source="static"} 1`,
		`zonekeeper_public_address_lookup_failures_total{source="stun 127.0.0.1:3478"} 2`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("metrics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := NewPrometheusMetrics(reg); err == nil {
		t.Fatal("registering twice succeeded")
	}
}

// gatherText renders every series as name{labels} value, sorted as the registry returns them.
func gatherText(t *testing.T, reg *prometheus.Registry) []string {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
			}
			v := m.GetGauge().GetValue() + m.GetCounter().GetValue()
			out = append(out, fmt.Sprintf("%s{%s} %g", mf.GetName(), strings.Join(labels, ","), v))
		}
	}
	return out
}
