package traefik

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/source"
)

// routeEndpoints turns one route into endpoints.
func (s *Source) routeEndpoints(w watched, u *unstructured.Unstructured, problems *source.Problems) []*endpoint.Endpoint {
	ref := endpoint.ObjectRef{Kind: w.k.kind, Namespace: u.GetNamespace(), Name: u.GetName()}
	o := s.k.Object(ref, u.GetAnnotations(), problems)
	if !o.Admitted(u.GetLabels()) {
		return nil
	}
	var rt routeView
	if !o.DecodeView(u, &rt) {
		return nil
	}
	rt.SetGroupVersionKind(w.gvk)
	targets, _ := o.TargetAnnotation() // the only targets a Traefik route has
	var hosts []string
	hosts = append(hosts, o.HostnameAnnotation()...)
	if w.k.rules {
		for i, r := range rt.Spec.Routes {
			for _, h := range ruleHosts(r.Match) {
				if n := o.NormalizeHost(fmt.Sprintf("spec.routes[%d].match", i), h); n != "" {
					hosts = append(hosts, n)
				}
			}
		}
	}
	if set, combine := s.k.HasTemplate(); set && (combine || len(hosts) == 0) {
		hosts = append(hosts, o.TemplateHostnames(&rt)...)
	}
	if len(hosts) == 0 || targets.Empty() {
		return nil
	}
	meta := o.Meta(w.k.label() + "/" + u.GetNamespace() + "/" + u.GetName())
	var eps []*endpoint.Endpoint
	for _, h := range hosts {
		eps = append(eps, meta.Endpoints(h, targets)...)
	}
	return eps
}
