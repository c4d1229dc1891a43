package gloo

import (
	"fmt"
	"testing"
)

// What indexing a Proxy costs (proxyRefs runs on the old and the new object of every Proxy event):
// one HTTP listener from a Gateway with 1,000 virtual hosts, each from two VirtualServices.
func BenchmarkProxyRefs(b *testing.B) {
	var vhosts []any
	for i := range 1000 {
		vhosts = append(vhosts, vhost([]string{fmt.Sprintf("h%d.example.com", i)}, i%2 == 0, fmt.Sprintf("team/vs%d", i), "team/shared"))
	}
	p := proxy("gloo-system", "gateway-proxy", []any{listener(vhosts, "gloo-system/gw")})
	b.ReportAllocs()
	for b.Loop() {
		if keys, _ := proxyRefs(p); len(keys) != 2001 {
			b.Fatalf("%d keys", len(keys))
		}
	}
}
