// Package events tells the owners of Services and Ingresses what happened to the names they asked for,
// as Kubernetes Events on the object: published, rejected by the DNS provider, in conflict with another
// owner or object, or carrying an invalid annotation. client-go's event correlator aggregates similar
// events and rate-limits each object, so a flapping object cannot flood the API server.
//
// A bulk publish (a first sync, a change to every object) is bounded as a whole: at most
// PerObjectEvents Events on single objects per BudgetWindow (100 a minute); the Events over that are
// counted per namespace and reason and, when the window closes, told by one summary Event on the
// Namespace (cluster-scoped objects: on the first of them) that gives the count and names the first
// SummaryNames objects. At most SummaryEvents summaries a window; every summarised window is logged
// with its counts, so no Event is lost without a word. A held mass change (Held) is one Event per
// namespace already and is not budgeted. Events have a client of their own (ClientQPS, ClientBurst),
// so they never take the main client's --kube-api-qps from the informers, status writes and Leases.
package events

import (
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/tools/reference"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/kube"
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
	log         *slog.Logger
	budget      *budget
	// sink counts what the broadcaster has written, so that Stop can wait for the queue.
	sink *countingSink
	// scheme gives the kind of an object that carries no apiVersion and kind (kube.NewScheme: the
	// built-in kinds sources publish; Gateway API and custom objects carry their own).
	scheme *runtime.Scheme
}

// StopTimeout bounds how long Stop waits for queued Events (--once exits after it).
const StopTimeout = 5 * time.Second

// New returns a notifier that records Events for the objects lookup finds, through a client of its
// own made from the main client's configuration rc (its rate limiter is not shared). Call Stop to
// flush and stop.
func New(rc *rest.Config, lookup source.ObjectLookup, log *slog.Logger) (*Notifier, error) {
	client, err := newClient(rc)
	if err != nil {
		return nil, fmt.Errorf("events client: %w", err)
	}
	b := record.NewBroadcaster()
	sink := &countingSink{EventSink: kube.EventSink{Client: client}}
	b.StartRecordingToSink(sink)
	n := &Notifier{
		recorder:    b.NewRecorder(client.Scheme, corev1.EventSource{Component: "zonekeeper"}),
		broadcaster: b,
		lookup:      lookup,
		log:         log,
		sink:        sink,
		scheme:      client.Scheme,
	}
	n.budget = &budget{window: BudgetWindow, flush: n.writeSummaries}
	return n, nil
}

// Stop writes the summaries gathered so far, waits, at most StopTimeout, until every Event recorded
// so far has been written (or refused by the API server), then shuts the broadcaster down. Shutting
// it down at once would drop the queue: client-go cancels the writes in flight and the Events still
// queued.
func (n *Notifier) Stop() {
	n.budget.stop()
	n.sink.waitFor(n.sink.recorded.Load(), StopTimeout)
	n.broadcaster.Shutdown()
}

// event records one Event on obj, or counts it into its namespace's summary when the window's
// budget is spent.
func (n *Notifier) event(obj runtime.Object, eventType, reason, format string, args ...any) {
	message := fmt.Sprintf(format, args...)
	ref, err := reference.GetReference(n.scheme, obj)
	if err == nil && !n.budget.admit(ref, eventType, reason, message) {
		return
	}
	// Without a reference the recorder fails the same way and logs it, as before the budget.
	n.record(obj, eventType, reason, message)
}

// record hands one Event to the broadcaster and counts it.
func (n *Notifier) record(obj runtime.Object, eventType, reason, message string) {
	n.sink.recorded.Add(1)
	n.recorder.Event(obj, eventType, reason, message)
}

// writeSummaries records one Event per namespace and reason for the Events a window had over its
// budget: on the Namespace, as Held does (`kubectl get events -n NS` shows it), or for cluster-scoped
// objects on the first of them. Past SummaryEvents the rest are only logged. The log line is written
// every time, so a summarised window is never silent.
func (n *Notifier) writeSummaries(pending map[summaryKey]*summary, perObject int) {
	objects, written := 0, 0
	var onlyLogged []string
	for _, k := range sortedKeys(pending) {
		s := pending[k]
		objects += s.count
		if written >= SummaryEvents {
			onlyLogged = append(onlyLogged, fmt.Sprintf("%s %s %d", k.namespace, k.reason, s.count))
			continue
		}
		ref := s.first
		if k.namespace != "" {
			ref = &corev1.ObjectReference{APIVersion: "v1", Kind: "Namespace", Name: k.namespace, Namespace: k.namespace}
		}
		n.record(ref, k.eventType, k.reason, summaryMessage(k, s, n.budget.window))
		written++
	}
	attrs := []any{"perObjectEvents", perObject, "summarised", objects, "summaryEvents", written, "window", n.budget.window}
	if len(onlyLogged) > 0 {
		attrs = append(attrs, "notRecorded", strings.Join(onlyLogged, "; "))
	}
	n.log.Info("events over the per-object budget told per namespace", attrs...)
}

// object finds the object of a resource label: "ingress/default/web", or "node/n1" for a
// cluster-scoped object.
func (n *Notifier) object(resource string) (runtime.Object, bool) {
	kind, namespace, name := endpoint.SplitResource(resource)
	if kind == "" {
		return nil, false
	}
	return n.lookup.LookupObject(kind, namespace, name)
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
		// Not through the budget: this is one Event per namespace already, and it must not wait
		// for the window a bulk publish spent.
		n.record(ref, corev1.EventTypeWarning, ReasonMassChangeHeld, message)
	}
}
