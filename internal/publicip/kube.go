package publicip

import (
	"context"
	"fmt"
	"net/netip"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/zonekeeper/zonekeeper/internal/kube"
)

// NodeSource reads the ExternalIP addresses in a Node's status.addresses (--public-ip-from-node). On a
// home lab the kubelet's --node-ip or a cloud controller sets them; one Get per refresh keeps it simple
// and needs only "get" on that one Node.
type NodeSource struct {
	Client *kube.Client
	Node   string
}

// Name implements Source.
func (s *NodeSource) Name() string { return "node/" + s.Node }

// Lookup implements Source.
func (s *NodeSource) Lookup(ctx context.Context) ([]netip.Addr, error) {
	node := &corev1.Node{}
	err := s.Client.Core.Get().Resource("nodes").Name(s.Node).Do(ctx).Into(node)
	if err != nil {
		return nil, fmt.Errorf("get node %s: %w", s.Node, err)
	}
	var out []netip.Addr
	var bad, others []string
	for _, a := range node.Status.Addresses {
		if a.Type != corev1.NodeExternalIP {
			others = append(others, fmt.Sprintf("%s %s", a.Type, a.Address))
			continue
		}
		ip, err := netip.ParseAddr(a.Address)
		if err != nil {
			bad = append(bad, fmt.Sprintf("%q", a.Address))
			continue
		}
		out = append(out, ip)
	}
	if len(out) == 0 {
		msg := fmt.Sprintf("node %s has no ExternalIP in status.addresses", s.Node)
		if len(bad) > 0 {
			msg += " (ExternalIP values that are not IP addresses: " + strings.Join(bad, ", ") + ")"
		} else if len(others) > 0 {
			msg += " (it has " + strings.Join(others, ", ") + ")"
		}
		return nil, fmt.Errorf("%s", msg)
	}
	return out, nil
}

// ServiceSource reads the IPs in a Service's status.loadBalancer.ingress (--public-ip-from-service):
// the address MetalLB, a cloud load balancer or a router integration gave the ingress controller.
type ServiceSource struct {
	Client    *kube.Client
	Namespace string
	Service   string
}

// Name implements Source.
func (s *ServiceSource) Name() string { return "service/" + s.Namespace + "/" + s.Service }

// Lookup implements Source.
func (s *ServiceSource) Lookup(ctx context.Context) ([]netip.Addr, error) {
	svc := &corev1.Service{}
	err := s.Client.Core.Get().Namespace(s.Namespace).Resource("services").Name(s.Service).Do(ctx).Into(svc)
	if err != nil {
		return nil, fmt.Errorf("get service %s/%s: %w", s.Namespace, s.Service, err)
	}
	var out []netip.Addr
	var bad, hostnames []string
	for _, in := range svc.Status.LoadBalancer.Ingress {
		if in.IP == "" {
			if in.Hostname != "" {
				hostnames = append(hostnames, in.Hostname)
			}
			continue
		}
		ip, err := netip.ParseAddr(in.IP)
		if err != nil {
			bad = append(bad, fmt.Sprintf("%q", in.IP))
			continue
		}
		out = append(out, ip)
	}
	if len(out) == 0 {
		msg := fmt.Sprintf("service %s/%s has no IP in status.loadBalancer.ingress", s.Namespace, s.Service)
		switch {
		case len(bad) > 0:
			msg += " (values that are not IP addresses: " + strings.Join(bad, ", ") + ")"
		case len(hostnames) > 0:
			msg += " (only hostnames: " + strings.Join(hostnames, ", ") + "; publish a CNAME to it instead)"
		}
		return nil, fmt.Errorf("%s", msg)
	}
	return out, nil
}

// ParseServiceRef splits the value of --public-ip-from-service, "namespace/name".
func ParseServiceRef(v string) (namespace, name string, err error) {
	ns, n, ok := strings.Cut(v, "/")
	if !ok || ns == "" || n == "" || strings.Contains(n, "/") {
		return "", "", fmt.Errorf("--public-ip-from-service=%q: want namespace/name", v)
	}
	return ns, n, nil
}
