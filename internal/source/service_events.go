package source

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"
)

// A Service's endpoints read its pods (NodePort with externalTrafficPolicy Local: the pods its
// selector picks; headless: the pods its EndpointSlices point at), its EndpointSlices and nodes (a
// NodePort Service's addresses are its nodes'; a headless one's NodeExternalIP targets are those of
// its pods' nodes, or of the nodes its slices' endpoints name). The events of pods, EndpointSlices and
// nodes name the Services that read them, so that a rollout or a node's new address costs what it
// changes: a node's names every NodePort Service and the Services reading the pods and slice
// endpoints on it.

// endpointSlicePodIndex indexes EndpointSlices by "<namespace>/<pod name>" of the pods their
// endpoints point at.
const endpointSlicePodIndex = "pod"

func endpointSlicePods(obj any) ([]string, error) {
	s, ok := obj.(*discoveryv1.EndpointSlice)
	if !ok {
		return nil, nil
	}
	var out []string
	for _, ep := range s.Endpoints {
		if ep.TargetRef != nil && ep.TargetRef.Kind == "Pod" {
			out = append(out, s.Namespace+"/"+ep.TargetRef.Name)
		}
	}
	return out, nil
}

// endpointSliceNodeIndex indexes EndpointSlices by the node names of their endpoints.
const endpointSliceNodeIndex = "node"

func endpointSliceNodes(obj any) ([]string, error) {
	s, ok := obj.(*discoveryv1.EndpointSlice)
	if !ok {
		return nil, nil
	}
	var out []string
	for _, ep := range s.Endpoints {
		if ep.NodeName != nil && *ep.NodeName != "" {
			out = append(out, *ep.NodeName)
		}
	}
	return out, nil
}

// serviceTypeIndex indexes Services by spec.type.
const serviceTypeIndex = "type"

func serviceType(obj any) ([]string, error) {
	if svc, ok := obj.(*corev1.Service); ok {
		return []string{string(svc.Spec.Type)}, nil
	}
	return nil, nil
}

// podNodeName is the podNodeIndex index function.
func podNodeName(obj any) ([]string, error) {
	if p, ok := obj.(*corev1.Pod); ok && p.Spec.NodeName != "" {
		return []string{p.Spec.NodeName}, nil
	}
	return nil, nil
}

// nodeServices names the Services that read a node: every NodePort Service, those reading a pod on
// it, and those whose EndpointSlices have an endpoint on it.
func (s *ServiceSource) nodeServices(obj any) []string {
	n, ok := obj.(*corev1.Node)
	if !ok || s.byType == nil {
		return []string{""}
	}
	nodePorts, err := s.byType.ByIndex(serviceTypeIndex, string(corev1.ServiceTypeNodePort))
	if err != nil {
		return []string{""}
	}
	var out []string
	for _, o := range nodePorts {
		if svc, ok := o.(*corev1.Service); ok {
			out = append(out, serviceResourceKind+"/"+svc.Namespace+"/"+svc.Name)
		}
	}
	if s.podsByNode != nil {
		pods, err := s.podsByNode.ByIndex(podNodeIndex, n.Name)
		if err != nil {
			return []string{""}
		}
		for _, p := range pods {
			out = append(out, s.podServices(p)...)
		}
	}
	if s.slicesByNode != nil {
		slices, err := s.slicesByNode.ByIndex(endpointSliceNodeIndex, n.Name)
		if err != nil {
			return []string{""}
		}
		for _, o := range slices {
			out = append(out, sliceService(o)...)
		}
	}
	return out
}

// sliceService names the Service an EndpointSlice belongs to.
func sliceService(obj any) []string {
	s, ok := obj.(*discoveryv1.EndpointSlice)
	if !ok {
		return []string{""}
	}
	if name := s.Labels[discoveryv1.LabelServiceName]; name != "" {
		return []string{serviceResourceKind + "/" + s.Namespace + "/" + name}
	}
	return nil // a slice of no Service: no Service reads it
}

// podServices names the Services that read a pod: those whose selector picks it and those with an
// EndpointSlice pointing at it.
func (s *ServiceSource) podServices(obj any) []string {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return []string{""}
	}
	svcs, err := s.services.Services(p.Namespace).List(labels.Everything())
	if err != nil {
		return []string{""}
	}
	var out []string
	for _, svc := range svcs {
		if len(svc.Spec.Selector) > 0 && labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(p.Labels)) {
			out = append(out, serviceResourceKind+"/"+svc.Namespace+"/"+svc.Name)
		}
	}
	if s.state.slices != nil {
		slices, err := s.state.slices.ByIndex(endpointSlicePodIndex, p.Namespace+"/"+p.Name)
		if err != nil {
			return []string{""}
		}
		for _, o := range slices {
			out = append(out, sliceService(o)...)
		}
	}
	return out
}

// watchServiceDependents names, in the events of the informers NewService watches, the Services they
// concern; call it before the informers start.
func (s *ServiceSource) watchServiceDependents(watched map[string]cache.SharedIndexInformer) {
	s.handlers.nameObjects("services", serviceResourceKind)
	if _, ok := watched["endpointslices"]; ok {
		s.handlers.dependentsOf("endpointslices", sliceService)
	}
	if _, ok := watched["pods"]; ok {
		s.handlers.dependentsOf("pods", s.podServices)
	}
	if _, ok := watched["nodes"]; ok && s.byType != nil {
		s.handlers.dependentsOf("nodes", s.nodeServices)
	}
}
