package source

import (
	"fmt"
	"net/netip"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// nodeAddressSet is what the sources read of one node's status.addresses: its ExternalIPs, its
// InternalIPs, the IPv6 ones among the InternalIPs (published next to the ExternalIPs with
// --expose-internal-ipv6, and always by the pod source's hostname annotation), and whether the node
// lists any ExternalIP at all, valid or not.
type nodeAddressSet struct {
	external, internal, internalV6 targets
	hasExternal                    bool
}

// readNodeAddresses sorts a node's ExternalIP and InternalIP addresses; other types (Hostname,
// InternalDNS, ExternalDNS) are not read, as in external-dns. An address that is not an IP is a
// Problem on the Node and left out, but an ExternalIP still counts as present, so that a node whose
// external address is malformed is not published with its internal ones instead.
func readNodeAddresses(problems *problemList, n *corev1.Node) nodeAddressSet {
	var s nodeAddressSet
	for i, a := range n.Status.Addresses {
		if a.Type != corev1.NodeExternalIP && a.Type != corev1.NodeInternalIP {
			continue
		}
		if a.Type == corev1.NodeExternalIP {
			s.hasExternal = true
		}
		ip, err := netip.ParseAddr(strings.TrimSpace(a.Address))
		if err != nil {
			problems.add(endpoint.ObjectRef{Kind: "Node", Name: n.Name}, fmt.Sprintf("status.addresses[%d].address", i), a.Address, "not an IP address")
			continue
		}
		v := ip.Unmap().String()
		rt := endpoint.SuitableType(v)
		if a.Type == corev1.NodeExternalIP {
			s.external.addValid(v, rt)
			continue
		}
		s.internal.addValid(v, rt)
		if rt == endpoint.RecordTypeAAAA {
			s.internalV6.addValid(v, rt)
		}
	}
	return s
}

// nodeSourceTargets are the addresses the node source publishes for a node (external-dns v0.21's
// rule): its ExternalIPs (plus its IPv6 InternalIPs with --expose-internal-ipv6) when it lists any,
// otherwise all its InternalIPs, IPv4 and IPv6.
func (s nodeAddressSet) nodeSourceTargets(exposeInternalIPv6 bool) targets {
	if !s.hasExternal {
		return s.internal
	}
	var t targets // a copy: the lists of s are not to be appended to in place
	t.addAll(s.external)
	if exposeInternalIPv6 {
		t.addAll(s.internalV6)
	}
	return t
}

// podHostnameTargets are the addresses the pod source publishes for the hostname annotation: the
// node's ExternalIPs and its IPv6 InternalIPs (IPv6 addresses are often reachable from outside though
// listed as internal), as external-dns v0.21 does.
func (s nodeAddressSet) podHostnameTargets() targets {
	var t targets
	t.addAll(s.external)
	t.addAll(s.internalV6)
	return t
}

// addInternalIPv6 adds a node's valid IPv6 InternalIPs to t, for --expose-internal-ipv6 with NodePort
// and headless services (malformed addresses are reported where the node's addresses are read).
func addInternalIPv6(n *corev1.Node, t *targets) {
	for _, a := range n.Status.Addresses {
		if a.Type != corev1.NodeInternalIP {
			continue
		}
		if ip, err := netip.ParseAddr(strings.TrimSpace(a.Address)); err == nil && ip.Unmap().Is6() {
			t.addValid(ip.String(), endpoint.RecordTypeAAAA)
		}
	}
}
