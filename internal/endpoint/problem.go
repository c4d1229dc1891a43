package endpoint

import (
	"fmt"
	"strings"
)

// ObjectRef names the Kubernetes object (or other origin) an endpoint or a problem came from.
type ObjectRef struct {
	Kind      string // "Service", "Ingress", ...
	Namespace string
	Name      string
}

func (o ObjectRef) String() string {
	if o.Namespace == "" {
		return o.Kind + "/" + o.Name
	}
	return o.Kind + " " + o.Namespace + "/" + o.Name
}

// Problem is bad input found in one object: it names the object and the field, and it never stops the
// other records from being published.
type Problem struct {
	Object ObjectRef
	Field  string // e.g. "metadata.annotations[external-dns.alpha.kubernetes.io/ttl]"
	Value  string
	Reason string
}

func (p Problem) Error() string {
	return fmt.Sprintf("%s: %s %q: %s", p.Object, p.Field, p.Value, p.Reason)
}

// FieldError is a validation failure of one field, before the object is known.
type FieldError struct {
	Field  string
	Value  string
	Reason string
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("%s %q: %s", e.Field, e.Value, e.Reason)
}

// In attaches the object to a field error.
func (e *FieldError) In(obj ObjectRef) Problem {
	return Problem{Object: obj, Field: e.Field, Value: e.Value, Reason: e.Reason}
}

// ResourceRef is the object a resource label names: "ingress/default/web", or "node/n1" for a
// cluster-scoped object; DNSEndpoints, labelled "crd", are named by their kind. The kind keeps the
// label's lower case: object lookups match kinds without regard to case.
func ResourceRef(resource string) ObjectRef {
	parts := strings.SplitN(resource, "/", 3)
	if parts[0] == "crd" {
		parts[0] = "DNSEndpoint"
	}
	switch len(parts) {
	case 3:
		return ObjectRef{Kind: parts[0], Namespace: parts[1], Name: parts[2]}
	case 2:
		return ObjectRef{Kind: parts[0], Name: parts[1]}
	}
	return ObjectRef{Name: resource}
}
