package source

import (
	"fmt"
	"net/netip"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// nodePortTargets returns the node addresses a NodePort service is reached on: ExternalIPs if any
// node has one, otherwise InternalIPs; the access annotation forces one or the other. With
// externalTrafficPolicy Local only nodes running a ready pod of the service count, because the
// others drop the traffic.
func (g *serviceGeneration) nodePortTargets() targets {
	var nodes []*corev1.Node
	if g.svc.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal {
		nodes = g.nodesWithReadyPods()
	} else if g.state.nodes != nil {
		nodes, _ = g.state.nodes.List(labels.Everything())
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Name < nodes[j].Name })

	var external, internal, internalV6 targets
	for _, n := range nodes {
		if n.Spec.Unschedulable && g.c.ExcludeUnschedulable {
			continue
		}
		addNodeAddresses(g.o.problems, n, corev1.NodeExternalIP, &external)
		addNodeAddresses(g.o.problems, n, corev1.NodeInternalIP, &internal)
		if g.c.ExposeInternalIPv6 {
			addInternalIPv6(n, &internalV6)
		}
	}
	// --expose-internal-ipv6 adds every IPv6 InternalIP to the public addresses, as in external-dns.
	switch g.o.choice(keyAccess, accessPublic, accessPrivate) {
	case accessPublic:
		external.addAll(internalV6)
		return external
	case accessPrivate:
		return internal
	}
	if !external.empty() {
		external.addAll(internalV6)
		return external
	}
	return internal
}

// addNodeAddresses adds a node's addresses of one type; a malformed one is a Problem on the Node.
func addNodeAddresses(problems *problemList, n *corev1.Node, kind corev1.NodeAddressType, t *targets) {
	for i, a := range n.Status.Addresses {
		if a.Type != kind {
			continue
		}
		ip, err := netip.ParseAddr(strings.TrimSpace(a.Address))
		if err != nil {
			problems.add(endpoint.ObjectRef{Kind: "Node", Name: n.Name}, fmt.Sprintf("status.addresses[%d].address", i), a.Address, "not an IP address")
			continue
		}
		t.addValid(ip.Unmap().String(), endpoint.SuitableType(ip.Unmap().String()))
	}
}

// nodesWithReadyPods returns the nodes running a ready pod selected by the service.
func (g *serviceGeneration) nodesWithReadyPods() []*corev1.Node {
	if g.state.pods == nil || g.state.nodes == nil || len(g.svc.Spec.Selector) == 0 {
		return nil
	}
	pods, err := g.state.pods.Pods(g.svc.Namespace).List(labels.SelectorFromSet(g.svc.Spec.Selector))
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	var nodes []*corev1.Node
	for _, p := range pods {
		if p.Spec.NodeName == "" || seen[p.Spec.NodeName] || !podReady(p) {
			continue
		}
		seen[p.Spec.NodeName] = true
		if n, err := g.state.nodes.Get(p.Spec.NodeName); err == nil {
			nodes = append(nodes, n)
		}
	}
	return nodes
}

// podReady reports whether a pod is running, not terminating, and Ready.
func podReady(p *corev1.Pod) bool {
	if p.Status.Phase != corev1.PodRunning || p.DeletionTimestamp != nil {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// nodePortSRV returns the SRV records external-dns publishes for NodePort services:
// _<service>._<proto>.<hostname> "0 50 <nodePort> <hostname>.". The plan drops them unless SRV is a
// managed record type.
func (g *serviceGeneration) nodePortSRV(hostname string) []*endpoint.Endpoint {
	var out []*endpoint.Endpoint
	for _, p := range g.svc.Spec.Ports {
		if p.NodePort <= 0 {
			continue
		}
		proto := strings.ToLower(string(p.Protocol))
		if proto == "" {
			proto = "tcp"
		}
		name := fmt.Sprintf("_%s._%s.%s", g.svc.Name, proto, hostname)
		value := fmt.Sprintf("0 50 %d %s.", p.NodePort, hostname)
		out = append(out, g.meta.newEndpoint(name, endpoint.RecordTypeSRV, []string{value}))
	}
	return out
}
