package source

import "github.com/zonekeeper/zonekeeper/internal/endpoint"

// problemList collects the problems of one generation pass.
type problemList struct {
	items []endpoint.Problem
}

func (l *problemList) add(obj endpoint.ObjectRef, field, value, reason string) {
	l.items = append(l.items, endpoint.Problem{Object: obj, Field: field, Value: value, Reason: reason})
}

// objectInput is one object being turned into endpoints: its identity, its annotations, and where its
// problems go.
type objectInput struct {
	ref         endpoint.ObjectRef
	annotations map[string]string
	reader      annotationReader
	problems    *problemList
}

func (o *objectInput) problem(field, value, reason string) {
	o.problems.add(o.ref, field, value, reason)
}

func (o *objectInput) lookup(key string) (value, fullKey string, ok bool) {
	return o.reader.lookup(o.annotations, key)
}
