package source

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// headlessTargets are the addresses behind a headless service: all of them, for the service's own
// name, and those of each pod that sets spec.hostname, for "<pod hostname>.<service hostname>".
type headlessTargets struct {
	all    targets
	byPod  map[string]*targets // pod hostname label → its targets
	labels []string            // keys of byPod, sorted
}

func (h *headlessTargets) endpointsFor(g *serviceGeneration, hostname string) []*endpoint.Endpoint {
	eps := g.meta.endpointsFor(hostname, h.all)
	for _, label := range h.labels {
		name, err := endpoint.NormalizeDNSName(label + "." + hostname)
		if err != nil {
			// The pod hostname was checked alone; only the combination can be too long.
			g.o.problem("<pod spec.hostname>.<hostname>", label+"."+hostname, err.Error())
			continue
		}
		eps = append(eps, g.meta.endpointsFor(name, *h.byPod[label])...)
	}
	return eps
}

// headlessTargets reads the service's EndpointSlices. Not-ready addresses count only with
// spec.publishNotReadyAddresses or --always-publish-not-ready-addresses. Per pod, the address is the
// pod's target annotation, else its node's ExternalIPs (endpoints-type NodeExternalIP), else its host
// IP (--publish-host-ip or endpoints-type HostIP), else the EndpointSlice address.
func (g *serviceGeneration) headlessTargets() *headlessTargets {
	h := &headlessTargets{byPod: map[string]*targets{}}
	publishNotReady := g.svc.Spec.PublishNotReadyAddresses || g.c.AlwaysPublishNotReadyAddresses
	endpointsType := g.o.choice(keyEndpointsType, endpointsTypeNodeExtIP, endpointsTypeHostIP)
	for _, slice := range g.state.endpointSlicesOf(g.svc.Namespace, g.svc.Name) {
		sliceRef := endpoint.ObjectRef{Kind: "EndpointSlice", Namespace: slice.Namespace, Name: slice.Name}
		for i, ep := range slice.Endpoints {
			ready := ep.Conditions.Ready == nil || *ep.Conditions.Ready
			if !ready && !publishNotReady {
				continue
			}
			pod := g.podOf(ep)
			var t targets
			podHostname := ""
			if ep.Hostname != nil {
				podHostname = *ep.Hostname
			}
			if pod != nil {
				podHostname = pod.Spec.Hostname
				t = g.podTargets(pod, ep, endpointsType, sliceRef, i)
			} else {
				t = g.sliceTargets(ep, endpointsType, sliceRef, i)
			}
			h.all.addAll(t)
			if podHostname == "" || t.empty() {
				continue
			}
			if _, err := endpoint.NormalizeDNSName(podHostname); err != nil {
				ref, field := sliceRef, fmt.Sprintf("endpoints[%d].hostname", i)
				if pod != nil {
					ref, field = endpoint.ObjectRef{Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name}, "spec.hostname"
				}
				g.o.problems.add(ref, field, podHostname, err.Error())
				continue
			}
			if h.byPod[podHostname] == nil {
				h.byPod[podHostname] = &targets{}
				h.labels = append(h.labels, podHostname)
			}
			h.byPod[podHostname].addAll(t)
		}
	}
	sort.Strings(h.labels)
	return h
}

// podOf returns the pod an EndpointSlice endpoint points at, if it is known.
func (g *serviceGeneration) podOf(ep discoveryv1.Endpoint) *corev1.Pod {
	if g.state.pods == nil || ep.TargetRef == nil || ep.TargetRef.Kind != "Pod" {
		return nil
	}
	ns := ep.TargetRef.Namespace
	if ns == "" {
		ns = g.svc.Namespace
	}
	p, err := g.state.pods.Pods(ns).Get(ep.TargetRef.Name)
	if err != nil {
		return nil
	}
	return p
}

func (g *serviceGeneration) podTargets(pod *corev1.Pod, ep discoveryv1.Endpoint, endpointsType string, sliceRef endpoint.ObjectRef, i int) targets {
	po := &objectInput{
		ref:         endpoint.ObjectRef{Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name},
		annotations: pod.Annotations,
		reader:      g.c.annotations,
		problems:    g.o.problems,
	}
	if t, ok := po.annotationTargets(); ok {
		return t
	}
	var t targets
	switch {
	case endpointsType == endpointsTypeNodeExtIP:
		g.addNodeExternalIPs(pod.Spec.NodeName, &t)
	case endpointsType == endpointsTypeHostIP || g.c.PublishHostIP:
		if pod.Status.HostIP != "" {
			t.add(po, "status.hostIP", pod.Status.HostIP)
		}
	default:
		return g.sliceTargets(ep, "", sliceRef, i)
	}
	return t
}

// sliceTargets returns the addresses of an endpoint whose pod is unknown. A host IP cannot be known
// without the pod, so HostIP mode yields nothing for it.
func (g *serviceGeneration) sliceTargets(ep discoveryv1.Endpoint, endpointsType string, sliceRef endpoint.ObjectRef, i int) targets {
	var t targets
	switch {
	case endpointsType == endpointsTypeNodeExtIP:
		if ep.NodeName != nil {
			g.addNodeExternalIPs(*ep.NodeName, &t)
		}
		return t
	case endpointsType == endpointsTypeHostIP || g.c.PublishHostIP:
		return t
	}
	so := &objectInput{ref: sliceRef, problems: g.o.problems}
	for j, a := range ep.Addresses {
		t.addNamed(so, func() string { return fmt.Sprintf("endpoints[%d].addresses[%d]", i, j) }, a)
	}
	return t
}

func (g *serviceGeneration) addNodeExternalIPs(nodeName string, t *targets) {
	if g.state.nodes == nil || nodeName == "" {
		return
	}
	if n, err := g.state.nodes.Get(nodeName); err == nil {
		addNodeAddresses(g.o.problems, n, corev1.NodeExternalIP, t)
		if g.c.ExposeInternalIPv6 {
			addInternalIPv6(n, t)
		}
	}
}
