// Package events tells the owners of Services and Ingresses what happened to the names they asked for,
// as Kubernetes Events on the object: published, rejected by the DNS provider, in conflict with another
// owner or object, or carrying an invalid annotation. client-go's event correlator aggregates similar
// events and rate-limits each object, so a flapping object cannot flood the API server.
package events

import (
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/source"
)

// Event reasons.
const (
	ReasonPublished         = "Published"
	ReasonRejected          = "RecordRejected"
	ReasonConflict          = "Conflict"
	ReasonInvalidAnnotation = "InvalidAnnotation"
	ReasonInvalidInput      = "InvalidInput"
	ReasonMassChangeHeld    = "MassChangeHeld"
)

// Notifier sends Events. It implements controller.Notifier.
type Notifier struct {
	recorder    record.EventRecorder
	broadcaster record.EventBroadcaster
	lookup      source.ObjectLookup
	// sink counts what the broadcaster has written, so that Stop can wait for the queue.
	sink *countingSink
}

// StopTimeout bounds how long Stop waits for queued Events (--once exits after it).
const StopTimeout = 5 * time.Second

// New returns a notifier that records Events through client for the objects lookup finds. Call Stop
// to flush and stop.
func New(client kubernetes.Interface, lookup source.ObjectLookup) *Notifier {
	b := record.NewBroadcaster()
	sink := &countingSink{EventSink: &typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")}}
	b.StartRecordingToSink(sink)
	return &Notifier{
		recorder:    b.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "zonekeeper"}),
		broadcaster: b,
		lookup:      lookup,
		sink:        sink,
	}
}

// Stop waits, at most StopTimeout, until every Event recorded so far has been written (or refused by
// the API server), then shuts the broadcaster down. Shutting it down at once would drop the queue:
// client-go cancels the writes in flight and the Events still queued.
func (n *Notifier) Stop() {
	n.sink.waitFor(n.sink.recorded.Load(), StopTimeout)
	n.broadcaster.Shutdown()
}

// event records one Event and counts it.
func (n *Notifier) event(obj runtime.Object, eventType, reason, format string, args ...any) {
	n.sink.recorded.Add(1)
	n.recorder.Eventf(obj, eventType, reason, format, args...)
}

// object finds the object of a resource label: "ingress/default/web", or "node/n1" for a
// cluster-scoped object.
func (n *Notifier) object(resource string) (runtime.Object, bool) {
	parts := strings.SplitN(resource, "/", 3)
	switch len(parts) {
	case 3:
		return n.lookup.LookupObject(parts[0], parts[1], parts[2])
	case 2:
		return n.lookup.LookupObject(parts[0], "", parts[1])
	}
	return nil, false
}

// Published implements controller.Notifier.
func (n *Notifier) Published(resource string, records []*endpoint.Endpoint) {
	obj, ok := n.object(resource)
	if !ok {
		return
	}
	parts := make([]string, 0, len(records))
	for _, r := range records {
		parts = append(parts, fmt.Sprintf("%s %s %s", r.DNSName, r.RecordType, strings.Join(r.Targets, ",")))
	}
	sort.Strings(parts)
	n.event(obj, corev1.EventTypeNormal, ReasonPublished, "Published %s", strings.Join(parts, "; "))
}

// Rejected implements controller.Notifier.
func (n *Notifier) Rejected(resource string, record *endpoint.Endpoint, err error) {
	obj, ok := n.object(resource)
	if !ok {
		return
	}
	n.event(obj, corev1.EventTypeWarning, ReasonRejected, "The DNS provider rejected %s %s: %v (retried with backoff)",
		record.DNSName, record.RecordType, err)
}

// Conflict implements controller.Notifier.
func (n *Notifier) Conflict(resource string, message string) {
	obj, ok := n.object(resource)
	if !ok {
		return
	}
	n.event(obj, corev1.EventTypeWarning, ReasonConflict, "%s", message)
}

// InvalidInput implements controller.Notifier.
func (n *Notifier) InvalidInput(p endpoint.Problem) {
	obj, ok := n.lookup.LookupObject(p.Object.Kind, p.Object.Namespace, p.Object.Name)
	if !ok {
		return
	}
	reason := ReasonInvalidInput
	if strings.HasPrefix(p.Field, "metadata.annotations") {
		reason = ReasonInvalidAnnotation
	}
	n.event(obj, corev1.EventTypeWarning, reason, "%s %q ignored: %s", p.Field, p.Value, p.Reason)
}

// Held implements controller.GuardNotifier: a Warning Event on each Namespace (recorded in that
// namespace, so `kubectl get events -n NS` shows it) whose objects' records a held mass change
// would delete or update.
func (n *Notifier) Held(namespaces []string, message string) {
	for _, ns := range namespaces {
		ref := &corev1.ObjectReference{APIVersion: "v1", Kind: "Namespace", Name: ns, Namespace: ns}
		n.event(ref, corev1.EventTypeWarning, ReasonMassChangeHeld, "%s", message)
	}
}
