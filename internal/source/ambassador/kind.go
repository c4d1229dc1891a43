package ambassador

import (
	"github.com/zonekeeper/zonekeeper/internal/source"
)

// Kind is --source=ambassador-host. It reads Hosts and Services in --namespace with get, list and
// watch, and waits for the Host CRD when it is missing.
func Kind() source.Kind {
	return source.Kind{
		Name:    "ambassador-host",
		Cluster: true,
		Labels:  []string{label},
		Reads: func(source.Config) []source.Resource {
			return []source.Resource{
				{Group: HostResource.Group, Version: HostResource.Version, Resource: HostResource.Resource, CRD: true},
				{Version: "v1", Resource: "services"},
			}
		},
		New:    newSource,
		Static: staticKind(),
	}
}
