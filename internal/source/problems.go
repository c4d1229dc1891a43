package source

import "github.com/zonekeeper/zonekeeper/internal/endpoint"

// problemList collects the problems of one generation pass.
type problemList struct {
	items []endpoint.Problem
	// reads are the objects whose unread annotations are reported when the problems are collected
	// (annotation_reads.go).
	reads map[endpoint.ObjectRef]*readCheck
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
	// read has the bit of every known key looked up (readBit), for the unread check.
	read uint32
}

func (o *objectInput) problem(field, value, reason string) {
	o.problems.add(o.ref, field, value, reason)
}

func (o *objectInput) lookup(key string) (value, fullKey string, ok bool) {
	o.read |= readBit(key)
	return o.reader.lookup(o.annotations, key)
}
