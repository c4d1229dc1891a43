// Package publicip finds the address the Internet reaches this cluster at (the WAN address of a home
// router, the address of a cloud load balancer) so the external view of a zone can publish it instead
// of the private address a Service reports. Sources: a static value, a Node's ExternalIP, a Service's
// load-balancer status, an HTTP echo URL and a STUN Binding request. They are tried in priority order on
// every refresh; the first one that yields an acceptable address wins. A failed or rejected lookup keeps
// the last good address, and subscribers hear only of real changes.
package publicip

import (
	"net/netip"
	"strings"
	"time"
)

// Address is the public address in force.
type Address struct {
	// V4 and V6 are the addresses of each family; either may be the zero netip.Addr.
	V4, V6 netip.Addr
	// Source says where the address came from: "static", "node/worker-1",
	// "service/ingress-nginx/ingress-nginx-controller", "http https://…", "stun 127.0.0.1:3478".
	Source string
	// Since is when this address (V4 and V6) came into force.
	Since time.Time
}

// Addrs returns the valid addresses, IPv4 first.
func (a Address) Addrs() []netip.Addr {
	var out []netip.Addr
	if a.V4.IsValid() {
		out = append(out, a.V4)
	}
	if a.V6.IsValid() {
		out = append(out, a.V6)
	}
	return out
}

// String is the addresses joined by a comma, "none" when there are none.
func (a Address) String() string {
	addrs := a.Addrs()
	if len(addrs) == 0 {
		return "none"
	}
	s := make([]string, len(addrs))
	for i, x := range addrs {
		s[i] = x.String()
	}
	return strings.Join(s, ",")
}

// sameAddrs reports whether a and b publish the same records (the source may differ).
func (a Address) sameAddrs(b Address) bool { return a.V4 == b.V4 && a.V6 == b.V6 }
