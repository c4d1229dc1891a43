// Package kinds is the one table of source kinds: every value --source takes. A new kind lives in its own
// files (or package under internal/source) and adds one line here; flags validation, the pipeline, the
// RBAC check and the docs test read this table.
package kinds

import (
	"sort"

	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/source/ambassador"
	"github.com/zonekeeper/zonekeeper/internal/source/contour"
	"github.com/zonekeeper/zonekeeper/internal/source/f5"
	"github.com/zonekeeper/zonekeeper/internal/source/gateway"
	"github.com/zonekeeper/zonekeeper/internal/source/gloo"
	"github.com/zonekeeper/zonekeeper/internal/source/istio"
	"github.com/zonekeeper/zonekeeper/internal/source/kong"
	"github.com/zonekeeper/zonekeeper/internal/source/openshift"
	"github.com/zonekeeper/zonekeeper/internal/source/skipper"
	"github.com/zonekeeper/zonekeeper/internal/source/traefik"
)

// All returns every source kind zonekeeper implements.
func All() []source.Kind {
	return []source.Kind{
		source.ServiceKind(),
		source.IngressKind(),
		source.DNSEndpointKind(),
		source.ManifestKind(static),
		source.NodeKind(),
		source.PodKind(),
		gateway.HTTPRouteKind(),
		gateway.GRPCRouteKind(),
		gateway.TLSRouteKind(),
		gateway.TCPRouteKind(),
		gateway.UDPRouteKind(),
		traefik.Kind(),
		contour.Kind(),
		istio.GatewayKind(),
		istio.VirtualServiceKind(),
		openshift.Kind(),
		f5.VirtualServerKind(),
		f5.TransportServerKind(),
		ambassador.Kind(),
		kong.Kind(),
		skipper.Kind(),
		gloo.Kind(),
	}
}

// static returns the kinds that can read their objects from manifests.
func static() []source.Kind {
	var out []source.Kind
	for _, k := range All() {
		if k.Static != nil {
			out = append(out, k)
		}
	}
	return out
}

// Lookup returns the kind named name.
func Lookup(name string) (source.Kind, bool) {
	for _, k := range All() {
		if k.Name == name {
			return k, true
		}
	}
	return source.Kind{}, false
}

// Names returns the names of every kind, sorted.
func Names() []string {
	var out []string
	for _, k := range All() {
		out = append(out, k.Name)
	}
	sort.Strings(out)
	return out
}
