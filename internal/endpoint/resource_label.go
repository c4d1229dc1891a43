package endpoint

import "strings"

// SplitResource splits a resource label (ResourceLabelKey): "kind/namespace/name", or "kind/name" for
// a cluster-scoped object. A label without a "/" is a name alone. Sources write these labels; the
// controller, Events and the sources' event path read them back through this one function.
func SplitResource(resource string) (kind, namespace, name string) {
	parts := strings.SplitN(resource, "/", 3)
	switch len(parts) {
	case 3:
		return parts[0], parts[1], parts[2]
	case 2:
		return parts[0], "", parts[1]
	}
	return "", "", resource
}
