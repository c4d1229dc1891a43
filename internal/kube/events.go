package kube

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// EventSink writes core/v1 Events through the core REST client, for client-go's record package (the
// typed client's EventSinkImpl without the clientset). Like it, each call has no deadline of its own:
// the broadcaster retries and the REST client's timeout applies.
type EventSink struct{ Client *Client }

// Create implements record.EventSink.
func (s EventSink) Create(e *corev1.Event) (*corev1.Event, error) {
	out := &corev1.Event{}
	err := s.Client.Core.Post().Namespace(e.Namespace).Resource("events").Body(e).Do(context.TODO()).Into(out)
	return out, err
}

// Update implements record.EventSink.
func (s EventSink) Update(e *corev1.Event) (*corev1.Event, error) {
	out := &corev1.Event{}
	err := s.Client.Core.Put().Namespace(e.Namespace).Resource("events").Name(e.Name).Body(e).Do(context.TODO()).Into(out)
	return out, err
}

// Patch implements record.EventSink: a strategic merge patch of an Event already written.
func (s EventSink) Patch(e *corev1.Event, data []byte) (*corev1.Event, error) {
	out := &corev1.Event{}
	err := s.Client.Core.Patch(types.StrategicMergePatchType).Namespace(e.Namespace).Resource("events").Name(e.Name).Body(data).Do(context.TODO()).Into(out)
	return out, err
}
