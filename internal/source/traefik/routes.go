package traefik

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/zonekeeper/zonekeeper/internal/source"
)

// routeView is what is read of a route of any kind; the names are those of Traefik's Go types, so
// that --fqdn-template reads {{.Name}}, {{.Kind}}, {{.Spec.Routes}} as it would on them.
type routeView struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Routes []struct {
			Match string `json:"match"`
		} `json:"routes"`
	} `json:"spec"`
}

// read returns a route's names (the hostname annotation, then the hosts of its rules) and its targets
// (the target annotation: a Traefik route has no address of its own).
func (rk routeKind) read(o *source.Object, u *unstructured.Unstructured) ([]string, source.Targets, any, bool) {
	rt := &routeView{}
	if !o.DecodeView(u, rt) {
		return nil, source.Targets{}, nil, false
	}
	targets, _ := o.TargetAnnotation()
	hosts := o.HostnameAnnotation()
	if rk.rules {
		for i, r := range rt.Spec.Routes {
			for _, h := range ruleHosts(r.Match) {
				if n := o.NormalizeHost(fmt.Sprintf("spec.routes[%d].match", i), h); n != "" {
					hosts = append(hosts, n)
				}
			}
		}
	}
	return hosts, targets, rt, true
}
