// Package status writes what happened back onto DNSEndpoint objects: status.observedGeneration, as
// external-dns does, and two conditions external-dns lacks — Ready (every endpoint of the object is
// published) and Conflict (a name is held by another owner or claimed by another object).
package status

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/zonekeeper/zonekeeper/internal/controller"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/source"
)

// Condition types and reasons.
const (
	ConditionReady    = "Ready"
	ConditionConflict = "Conflict"

	ReasonPublished        = "Published"
	ReasonInvalidEndpoint  = "InvalidEndpoint"
	ReasonProviderRejected = "ProviderRejected"
	ReasonNameConflict     = "NameConflict"
	ReasonNoConflict       = "NoConflict"
)

// DNSEndpointWriter is a controller.Observer that patches the status of DNSEndpoint objects after
// every successful reconcile, only when it changed.
type DNSEndpointWriter struct {
	client dynamic.Interface
	// source is the running DNSEndpoint source; nil while it waits for its CRD or RBAC.
	source func() *source.DNSEndpointSource
	log    *slog.Logger
	now    func() time.Time

	mu sync.Mutex
	// written is the last status patched per object; comparing with it (not with the server's copy)
	// avoids a patch on every run where an older CRD prunes the conditions.
	written map[types.UID]objectStatus
	// rejected remembers, per view and resource, the record sets the provider refused, until they are
	// applied or no longer asked for: a refused record set is held back for its retry, so a run in
	// between says nothing about it.
	rejected map[string]map[string]map[endpoint.Key]string
	// latest holds each view's findings from its last reconcile. With views, every view's controller
	// reports here in turn; the status is written from all of them together, so that it neither
	// flips between views nor hides what only one view found.
	latest map[string]map[string]*findings
}

// NewDNSEndpointWriter returns a writer for the objects of src.
func NewDNSEndpointWriter(client dynamic.Interface, src func() *source.DNSEndpointSource, log *slog.Logger) *DNSEndpointWriter {
	return &DNSEndpointWriter{client: client, source: src, log: log, now: time.Now,
		written: map[types.UID]objectStatus{}, rejected: map[string]map[string]map[endpoint.Key]string{},
		latest: map[string]map[string]*findings{}}
}

type objectStatus struct {
	ObservedGeneration int64              `json:"observedGeneration"`
	Conditions         []metav1.Condition `json:"conditions"`
}

// findings are what one run found about one object.
type findings struct {
	problems  []string
	conflicts []string
	rejected  []string
	published int
}

// Reconciled implements controller.Observer.
func (w *DNSEndpointWriter) Reconciled(r controller.Report) {
	if r.Err != nil || r.Changes == nil {
		return // nothing new is known
	}
	src := w.source()
	if src == nil {
		return
	}
	if r.Scope != nil {
		w.reconciledScoped(r, src)
		return
	}
	objs, err := src.Objects()
	if err != nil {
		return
	}
	res, err := src.Endpoints(context.Background())
	if err != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.latest[r.View] = w.collect(r, res, nil)
	byResource := w.merged()
	seen := make(map[types.UID]bool, len(objs))
	for _, d := range objs {
		seen[d.UID] = true
		w.write(d, byResource[dnsEndpointResource(d)])
	}
	for uid := range w.written {
		if !seen[uid] {
			delete(w.written, uid)
		}
	}
}

// reconciledScoped writes the status of the DNSEndpoints an event's run covered (Report.Scope):
// their endpoints, problems, conflicts and rejections are known, as every name they had or have was
// planned. Other objects keep their status until a run covers them; a DNSEndpoint whose conflict
// ends because an object of another kind (an Ingress) moved away learns it at the next resync.
func (w *DNSEndpointWriter) reconciledScoped(r controller.Report, src *source.DNSEndpointSource) {
	var scope []string
	only := map[string]bool{}
	for _, resource := range r.Scope {
		if strings.HasPrefix(resource, "crd/") {
			scope = append(scope, resource)
			only[resource] = true
		}
	}
	if len(scope) == 0 {
		return
	}
	res, err := src.ObjectEndpoints(context.Background(), scope)
	if err != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	found := w.collect(r, res, only)
	latest := w.latest[r.View]
	if latest == nil {
		latest = map[string]*findings{}
		w.latest[r.View] = latest
	}
	for _, resource := range scope {
		if f := found[resource]; f != nil {
			latest[resource] = f
		} else {
			delete(latest, resource)
		}
	}
	for _, resource := range scope {
		d, ok, err := src.Object(resource)
		if err != nil || !ok {
			continue // gone: the next full run forgets what was written for it
		}
		w.write(d, w.mergedOne(resource))
	}
}

// write patches the status of d when it differs from what was last written.
func (w *DNSEndpointWriter) write(d *source.DNSEndpoint, f *findings) {
	st := w.statusFor(d, f)
	if prev, ok := w.written[d.UID]; ok && sameStatus(prev, st) {
		return
	}
	if err := w.patch(d, st); err != nil {
		w.log.Warn("Cannot write DNSEndpoint status", "object", d.Namespace+"/"+d.Name, "error", err.Error())
		return
	}
	w.written[d.UID] = st
}

// dnsEndpointResource is the resource label of d's endpoints.
func dnsEndpointResource(d *source.DNSEndpoint) string {
	return fmt.Sprintf("crd/%s/%s", d.Namespace, d.Name)
}

// mergedOne is merged for one object.
func (w *DNSEndpointWriter) mergedOne(resource string) *findings {
	var m *findings
	for _, byResource := range w.latest {
		if f := byResource[resource]; f != nil {
			if m == nil {
				m = &findings{}
			}
			m.add(f)
		}
	}
	return m
}

// add joins the findings of another view into m.
func (m *findings) add(f *findings) {
	m.problems = appendNew(m.problems, f.problems...)
	m.conflicts = appendNew(m.conflicts, f.conflicts...)
	m.rejected = appendNew(m.rejected, f.rejected...)
	m.published = max(m.published, f.published)
}

// merged joins the latest findings of every view: a problem, conflict or rejection found by any view
// counts (each names its view), and published is the most any view published.
func (w *DNSEndpointWriter) merged() map[string]*findings {
	out := map[string]*findings{}
	for _, byResource := range w.latest {
		for resource, f := range byResource {
			m := out[resource]
			if m == nil {
				m = &findings{}
				out[resource] = m
			}
			m.add(f)
		}
	}
	return out
}

// appendNew appends the values not already in list (input problems are the same in every view).
func appendNew(list []string, values ...string) []string {
	for _, v := range values {
		if !slices.Contains(list, v) {
			list = append(list, v)
		}
	}
	return list
}

// collect sorts one view's findings by resource and keeps that view's sticky rejections right; only,
// when set, holds the objects res covers (an event's run), whose rejections alone it may forget.
func (w *DNSEndpointWriter) collect(r controller.Report, res source.Result, only map[string]bool) map[string]*findings {
	where := ""
	if r.View != "" {
		where = "view " + r.View + ": "
	}
	rejected := w.rejected[r.View]
	if rejected == nil {
		rejected = map[string]map[endpoint.Key]string{}
		w.rejected[r.View] = rejected
	}
	out := map[string]*findings{}
	get := func(resource string) *findings {
		f := out[resource]
		if f == nil {
			f = &findings{}
			out[resource] = f
		}
		return f
	}
	desired := map[string]map[endpoint.Key]bool{}
	for _, e := range res.Endpoints {
		if desired[e.Resource()] == nil {
			desired[e.Resource()] = map[endpoint.Key]bool{}
		}
		desired[e.Resource()][e.Key()] = true
		get(e.Resource()).published++
	}
	for _, p := range r.ProblemList {
		if p.Object.Kind == "DNSEndpoint" {
			f := get(fmt.Sprintf("crd/%s/%s", p.Object.Namespace, p.Object.Name))
			f.problems = append(f.problems, fmt.Sprintf("%s %q: %s", p.Field, p.Value, p.Reason))
		}
	}
	for _, c := range r.Conflicts {
		get(c.Loser).conflicts = append(get(c.Loser).conflicts, fmt.Sprintf("%s%s is also claimed by %s, which keeps it", where, c.Key, c.Winner))
	}
	for _, m := range r.OwnerMismatches {
		owner := "no owner (not created by zonekeeper or external-dns)"
		if m.ForeignOwner != "" {
			owner = fmt.Sprintf("owner %q", m.ForeignOwner)
		}
		get(m.Resource).conflicts = append(get(m.Resource).conflicts, fmt.Sprintf("%s%s is held by %s", where, m.Key, owner))
	}
	failed := map[endpoint.Key]bool{}
	for _, x := range r.Rejected {
		failed[x.Endpoint.Key()] = true
		res := x.Endpoint.Resource()
		if rejected[res] == nil {
			rejected[res] = map[endpoint.Key]string{}
		}
		rejected[res][x.Endpoint.Key()] = x.Err.Error()
	}
	for _, list := range [][]*endpoint.Endpoint{r.Changes.Create, r.Changes.UpdateNew} {
		for _, e := range list {
			if !failed[e.Key()] {
				delete(rejected[e.Resource()], e.Key())
			}
		}
	}
	for res, keys := range rejected {
		if only != nil && !only[res] {
			continue
		}
		for k, msg := range keys {
			if !desired[res][k] {
				delete(keys, k)
				continue
			}
			get(res).rejected = append(get(res).rejected, fmt.Sprintf("%s%s: %s", where, k, msg))
		}
		if len(keys) == 0 {
			delete(rejected, res)
		}
	}
	return out
}

func (w *DNSEndpointWriter) statusFor(d *source.DNSEndpoint, f *findings) objectStatus {
	if f == nil {
		f = &findings{}
	}
	sort.Strings(f.problems)
	sort.Strings(f.conflicts)
	sort.Strings(f.rejected)
	conflict := metav1.Condition{Type: ConditionConflict, Status: metav1.ConditionFalse, Reason: ReasonNoConflict, Message: "no other owner or object claims these names"}
	if len(f.conflicts) > 0 {
		conflict = metav1.Condition{Type: ConditionConflict, Status: metav1.ConditionTrue, Reason: ReasonNameConflict, Message: strings.Join(f.conflicts, "; ")}
	}
	ready := metav1.Condition{Type: ConditionReady, Status: metav1.ConditionTrue, Reason: ReasonPublished, Message: fmt.Sprintf("%d record set(s) published", f.published)}
	switch {
	case len(f.problems) > 0:
		ready = metav1.Condition{Type: ConditionReady, Status: metav1.ConditionFalse, Reason: ReasonInvalidEndpoint, Message: strings.Join(f.problems, "; ")}
	case len(f.rejected) > 0:
		ready = metav1.Condition{Type: ConditionReady, Status: metav1.ConditionFalse, Reason: ReasonProviderRejected, Message: strings.Join(f.rejected, "; ")}
	case len(f.conflicts) > 0:
		ready = metav1.Condition{Type: ConditionReady, Status: metav1.ConditionFalse, Reason: ReasonNameConflict, Message: strings.Join(f.conflicts, "; ")}
	}
	st := objectStatus{ObservedGeneration: d.Generation}
	prev := w.written[d.UID]
	for _, c := range []metav1.Condition{ready, conflict} {
		c.ObservedGeneration = d.Generation
		c.LastTransitionTime = metav1.NewTime(w.now().UTC().Truncate(time.Second))
		for _, p := range prev.Conditions {
			if p.Type == c.Type && p.Status == c.Status {
				c.LastTransitionTime = p.LastTransitionTime
			}
		}
		st.Conditions = append(st.Conditions, c)
	}
	return st
}

func sameStatus(a, b objectStatus) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

func (w *DNSEndpointWriter) patch(d *source.DNSEndpoint, st objectStatus) error {
	body, err := json.Marshal(map[string]any{"status": st})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = w.client.Resource(source.DNSEndpointResource()).Namespace(d.Namespace).
		Patch(ctx, d.Name, types.MergePatchType, body, metav1.PatchOptions{FieldManager: "zonekeeper"}, "status")
	return err
}
