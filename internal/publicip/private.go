package publicip

import (
	"fmt"
	"net/netip"
)

// nonPublicRange is a block of addresses that the Internet cannot reach, with the reason a user sees
// when a lookup returns one.
type nonPublicRange struct {
	prefix netip.Prefix
	why    string
	// never marks addresses that are not a host's address at all (multicast, unspecified, reserved):
	// AllowPrivate does not let them through.
	never bool
}

// nonPublicRanges lists what is never published to the external view unless AllowPrivate is set.
// CGNAT (RFC 6598) is the one a home router behind a carrier NAT reports as its WAN address, which is
// exactly the case where publishing it would be wrong.
var nonPublicRanges = [...]nonPublicRange{
	{prefix: netip.MustParsePrefix("0.0.0.0/8"), why: `in "this network" (0.0.0.0/8)`, never: true},
	{prefix: netip.MustParsePrefix("10.0.0.0/8"), why: "a private address (RFC 1918)"},
	{prefix: netip.MustParsePrefix("172.16.0.0/12"), why: "a private address (RFC 1918)"},
	{prefix: netip.MustParsePrefix("192.168.0.0/16"), why: "a private address (RFC 1918)"},
	{prefix: netip.MustParsePrefix("100.64.0.0/10"), why: "a carrier-grade NAT address (RFC 6598, 100.64.0.0/10): the router is behind the ISP's NAT"},
	{prefix: netip.MustParsePrefix("127.0.0.0/8"), why: "a loopback address"},
	{prefix: netip.MustParsePrefix("169.254.0.0/16"), why: "a link-local address"},
	{prefix: netip.MustParsePrefix("224.0.0.0/4"), why: "a multicast address", never: true},
	{prefix: netip.MustParsePrefix("240.0.0.0/4"), why: "a reserved or broadcast address (240.0.0.0/4)", never: true},
	{prefix: netip.MustParsePrefix("::/128"), why: "the unspecified address", never: true},
	{prefix: netip.MustParsePrefix("::1/128"), why: "a loopback address"},
	{prefix: netip.MustParsePrefix("fc00::/7"), why: "a unique local address (ULA, fc00::/7)"},
	{prefix: netip.MustParsePrefix("fe80::/10"), why: "a link-local address"},
	{prefix: netip.MustParsePrefix("ff00::/8"), why: "a multicast address", never: true},
}

// checkAddress returns an error naming the address and the reason when a may not be published: an
// invalid or zoned address, multicast and the like always; a private, CGNAT, loopback, link-local or
// ULA address unless allowPrivate. IPv4-mapped IPv6 addresses are judged as the IPv4 address they carry.
func checkAddress(a netip.Addr, allowPrivate bool) error {
	if !a.IsValid() {
		return fmt.Errorf("no address")
	}
	if a.Zone() != "" {
		return fmt.Errorf("%s has an IPv6 zone, which is meaningless outside this host", a)
	}
	u := a.Unmap()
	for _, r := range nonPublicRanges {
		if !r.prefix.Contains(u) {
			continue
		}
		if r.never {
			return fmt.Errorf("%s is %s", a, r.why)
		}
		if !allowPrivate {
			return fmt.Errorf("%s is %s; set --public-ip-allow-private to publish it anyway", a, r.why)
		}
		return nil
	}
	return nil
}
