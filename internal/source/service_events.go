package source

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"
)

// A Service's endpoints read its pods (NodePort with externalTrafficPolicy Local: the pods its
// selector picks; headless: the pods its EndpointSlices point at), its EndpointSlices and the nodes
// those pods run on. The events of pods and EndpointSlices name the Services that read them, so that
// a rollout costs what it changes; a node's event names none (a node's addresses can concern every
// NodePort Service) and plans everything.

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
}
