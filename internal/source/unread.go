package source

import (
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Nothing a user sets may be ignored silently: an annotation under our prefixes that the object's kind
// does not read, or that no version of external-dns knows, becomes a problem on the object (an Event)
// instead of doing nothing.

// externalDNSOnlyKeys are annotation keys external-dns v0.23 knows (source/annotations) that
// zonekeeper reads on other kinds only: "ingress" on Gateways, azure-tags as an azure/ property.
var externalDNSOnlyKeys = []string{"ingress", "azure-tags"}

// serviceUnread are the annotations a Service of svc's type does not read (nor does external-dns's
// service source): access only matters for NodePort Services, endpoints-type only for headless ones.
func serviceUnread(svc *corev1.Service) []string {
	keys := []string{keyIngressHostnameSource, keyGatewayHostnameSource, "ingress"}
	if svc.Spec.Type != corev1.ServiceTypeNodePort {
		keys = append(keys, keyAccess)
	}
	if svc.Spec.Type != corev1.ServiceTypeClusterIP || svc.Spec.ClusterIP != corev1.ClusterIPNone {
		keys = append(keys, keyEndpointsType)
	}
	return keys
}

// ingressUnread are the annotations external-dns's ingress source does not read.
func ingressUnread() []string {
	return []string{keyInternalHostname, keyAccess, keyEndpointsType, keyGatewayHostnameSource, "ingress"}
}

// serviceKind names a Service by type in problems ("NodePort Service", "headless Service").
func serviceKind(svc *corev1.Service) string {
	if svc.Spec.Type == corev1.ServiceTypeClusterIP && svc.Spec.ClusterIP == corev1.ClusterIPNone {
		return "headless Service"
	}
	return string(svc.Spec.Type) + " Service"
}

// reportUnreadKeys reports each annotation in keys that the object carries although its kind does not
// read it.
// Every source pass asks this of every object: the key is looked up from a stack buffer, not a new
// string (a map index by string(bytes) does not allocate), and an object without annotations costs
// nothing (issue 15: these keys were a quarter of what an idle resync allocated at 20k Ingresses).
func (o *objectInput) reportUnreadKeys(kind string, keys []string) {
	if len(o.annotations) == 0 {
		return
	}
	var buf [128]byte
	for _, k := range keys {
		for _, p := range o.reader.prefixes { // every prefix: keys such as "ingress" have no reader entry
			key := append(append(buf[:0], p...), k...)
			if v, ok := o.annotations[string(key)]; ok {
				o.problem(annotationField(p+k), v, "not read on a "+kind+" (external-dns does not read it there either)")
				break
			}
		}
	}
}

// reportUnknown reports every annotation under external-dns's prefixes whose key neither zonekeeper
// nor external-dns knows: a typo ("hostnames", "tll") would otherwise do nothing. Under a custom
// --annotation-prefix other tools may keep their own keys, so nothing is reported there.
func (o *objectInput) reportUnknown() {
	if len(o.annotations) == 0 || !slices.Contains(o.reader.prefixes, PrefixAlpha) {
		return
	}
	var keys []string
	for k := range o.annotations {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		suffix, ok := o.reader.splitKey(o.annotations, k)
		if !ok || slices.Contains(knownKeys, suffix) || slices.Contains(externalDNSOnlyKeys, suffix) {
			continue
		}
		if slices.ContainsFunc(providerSpecificPrefixes, func(p struct{ annotation, property string }) bool {
			return strings.HasPrefix(suffix, p.annotation)
		}) {
			continue
		}
		o.problem(annotationField(k), o.annotations[k], "unknown annotation: neither zonekeeper nor external-dns reads "+suffix)
	}
}
