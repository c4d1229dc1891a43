package controller

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	networkinglisters "k8s.io/client-go/listers/networking/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider/inmemory"
	"github.com/zonekeeper/zonekeeper/internal/registry/txt"
	"github.com/zonekeeper/zonekeeper/internal/source"
)

// TestEventPlanEqualsFullPlan drives the event path with long random sequences of Ingress creates,
// updates, renames and deletes (through the real Ingress source over an informer store), names
// shared by several objects (conflicts, CNAME against A), records of other owners, and changes the
// provider rejects (names outside its zone, retried with backoff). Before every event's run it
// computes a fresh full plan from everything; the event's run must send exactly the full plan's
// changes (less those a retry's backoff holds back), and afterwards every name a full plan would
// still change must be one the controller keeps pending. ZONEKEEPER_PROPERTY_STEPS sets the number
// of steps (default 100,000; each seed runs a share).
func TestEventPlanEqualsFullPlan(t *testing.T) {
	steps := 100_000
	if s := os.Getenv("ZONEKEEPER_PROPERTY_STEPS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		steps = n
	}
	for seed := range uint64(6) {
		// Seeds 2 and 3 run with the mass-change guard on, as by default: the guard holds some
		// deletes (settling, or a zone over its threshold), so there an event's run must send a part
		// of the full plan's changes and keep the names of the rest pending. Seeds 4 and 5 ask for
		// no name outside the zone: nothing is rejected, so runs often leave nothing to do and the
		// idle memo is kept through events' runs (idle_carry.go) far more often.
		guard, rejections := seed == 2 || seed == 3, seed < 4
		t.Run(fmt.Sprintf("seed=%d/guard=%t/rejections=%t", seed, guard, rejections), func(t *testing.T) {
			t.Parallel()
			runEventPlanProperty(t, seed, steps/6, guard, rejections)
		})
	}
}

// propertyWorld is the state one run of the property test evolves.
type propertyWorld struct {
	t        *testing.T
	rng      *rand.Rand
	store    cache.Indexer
	services cache.Indexer
	c        *Controller
	src      source.Source
	// oracle is a second source over the same objects: the full plans the test compares with must
	// not refresh what the controller's source remembers.
	oracle source.Source
	reg    *txt.Registry
	p      *inmemory.Provider
	clock  time.Time
	// noBad: the objects ask for no name outside the provider's zone.
	noBad bool
	// scoped counts the runs that planned by name; full those that planned everything; carried the
	// event runs after which the idle memo stood for a full plan; reused the resyncs that reused it.
	scoped, full, sent, rejected, held, carried, reused int
}

func runEventPlanProperty(t *testing.T, seed uint64, steps int, guard, rejections bool) {
	w := newPropertyWorld(t, seed)
	w.noBad = !rejections
	w.c.sourceCounted.Store(true) // as Run's handler does; mark counts each event (mutate)
	if guard {
		w.c.settings.Guard = plan.Guard{MaxDeleteFraction: 0.5, MinChanges: 3, Window: 20 * time.Second, Settle: 2 * time.Second, Zones: []string{"example.com"}}
	}
	ctx := context.Background()
	if _, err := w.c.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	for step := range steps {
		w.clock = w.clock.Add(time.Duration(w.rng.IntN(3000)) * time.Millisecond)
		for range 1 + w.rng.IntN(3) {
			w.mutate()
		}
		if w.rng.IntN(500) == 0 {
			w.c.Resync() // a resync now and then: the full path must leave the event path consistent
		}
		want := w.notHeldBack(w.fullPlan().Changes)
		report := w.runEvent(ctx, step)
		if report.Scope == nil {
			w.full++
		} else {
			w.scoped++
		}
		got := report.Changes
		if guard {
			want = within(want, got)
		}
		if d := diffChanges(want, got); d != "" {
			for k, e := range w.c.retries.entries {
				t.Logf("retry %v due %v (now %v)", k, e.due, w.clock)
			}
			t.Logf("pending %v", w.c.pending)
			t.Fatalf("step %d (scope %v): the event's plan differs from the full plan:\n%s", step, report.Scope, d)
		}
		for _, v := range report.Guard {
			if v.Held || v.Reason == "" && v.Deletes > 0 {
				w.held++ // a zone held, or deletes settling
				break
			}
		}
		w.sent += got.Len()
		w.rejected += len(report.Rejected)
		after := w.fullPlan()
		for _, list := range [][]*endpoint.Endpoint{after.Changes.Create, after.Changes.UpdateNew, after.Changes.Delete} {
			for _, e := range list {
				if !w.c.pending[plan.NameKey(e.DNSName)] {
					t.Fatalf("step %d: a full plan would still change %s %s, which the controller does not keep pending", step, e.DNSName, e.RecordType)
				}
			}
		}
		w.checkIdleMemo(ctx, step, after)
	}
	t.Logf("%d steps: %d event runs planned by name, %d in full; %d changes sent, %d rejected; %d runs with changes the guard held; "+
		"idle memo kept through %d event runs, reused by %d resyncs",
		steps, w.scoped, w.full, w.sent, w.rejected, w.held, w.carried, w.reused)
	if !rejections && !guard && (w.carried < steps/10 || w.reused < steps/100) {
		t.Errorf("the idle memo was kept through %d event runs and reused by %d resyncs of %d steps: the carry is barely exercised", w.carried, w.reused, steps)
	}
	if w.scoped < steps*9/10 {
		t.Errorf("only %d of %d runs planned by name", w.scoped, steps)
	}
	if w.sent == 0 || rejections && w.rejected == 0 {
		t.Errorf("the sequence sent %d changes and saw %d rejections: it exercises too little", w.sent, w.rejected)
	}
}

func newPropertyWorld(t *testing.T, seed uint64) *propertyWorld {
	store := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	services := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	newSource := func() source.Source {
		ing, err := source.NewIngressFromLister(networkinglisters.NewIngressLister(store), source.DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		svc, err := source.NewServiceFromLister(corelisters.NewServiceLister(services), source.DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		return source.PostProcess(source.NewMulti(ing, svc), source.PostProcessConfig{})
	}
	src := newSource()
	p := inmemory.New("example.com")
	// Records of others at names the objects ask for: another owner's, and one with no owner.
	ctx := context.Background()
	foreign := &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.New("h1.example.com", endpoint.RecordTypeA, "198.51.100.1"),
		endpoint.New("a-h1.example.com", endpoint.RecordTypeTXT, `"heritage=external-dns,external-dns/owner=other,external-dns/resource=ingress/x/y"`),
		endpoint.New("h2.example.com", endpoint.RecordTypeA, "198.51.100.2"),
	}}
	if err := p.ApplyChanges(ctx, foreign); err != nil {
		t.Fatal(err)
	}
	reg, err := txt.New(p, txt.Config{OwnerID: "test", CacheInterval: 1000 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	w := &propertyWorld{t: t, rng: rand.New(rand.NewPCG(seed, seed+1)), store: store, services: services, src: src, oracle: newSource(), reg: reg, p: p,
		clock: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	w.c = New(src, reg, Settings{OwnerID: "test", Policy: plan.PolicySync}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	w.c.now = func() time.Time { return w.clock }
	return w
}

// hosts are the names objects pick from: few, so that objects share them; "h1" and "h2" hold
// records of others; "bad" names lie outside the provider's zone and are rejected.
func (w *propertyWorld) host() string {
	switch n := w.rng.IntN(40); {
	case n < 2 && !w.noBad:
		return fmt.Sprintf("bad%d.elsewhere.org", n)
	default:
		return fmt.Sprintf("h%d.example.com", n%25)
	}
}

// mutate applies one random change to the objects and marks it as its informer event would.
func (w *propertyWorld) mutate() {
	if w.rng.IntN(2) == 0 {
		w.mutateService()
		return
	}
	name := fmt.Sprintf("app-%d", w.rng.IntN(30))
	resource := "ingress/default/" + name
	obj, exists, _ := w.store.GetByKey("default/" + name)
	switch op := w.rng.IntN(10); {
	case exists && op < 2:
		if err := w.store.Delete(obj); err != nil {
			w.t.Fatal(err)
		}
	default:
		ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Annotations: map[string]string{}}}
		if exists {
			ing = obj.(*networkingv1.Ingress).DeepCopy()
		}
		w.reshape(ing)
		if err := w.store.Update(ing); err != nil {
			w.t.Fatal(err)
		}
	}
	w.mark(resource)
}

// mutateService changes one LoadBalancer Service. Services sharing a name and type are merged into
// one record set (the first in namespace/name order keeps its TTL and is its resource): namespaces
// "a" and "a-x" sort differently as labels ("service/a-x/…" < "service/a/…") than as objects.
func (w *propertyWorld) mutateService() {
	namespace := []string{"a", "a-x"}[w.rng.IntN(2)]
	name := fmt.Sprintf("svc-%d", w.rng.IntN(15))
	resource := "service/" + namespace + "/" + name
	obj, exists, _ := w.services.GetByKey(namespace + "/" + name)
	if exists && w.rng.IntN(6) == 0 {
		if err := w.services.Delete(obj); err != nil {
			w.t.Fatal(err)
		}
		w.mark(resource)
		return
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Annotations: map[string]string{}},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer}}
	if exists {
		svc = obj.(*corev1.Service).DeepCopy()
	}
	switch w.rng.IntN(4) {
	case 0:
		var hosts []string
		for range w.rng.IntN(3) {
			hosts = append(hosts, w.host())
		}
		svc.Annotations[source.PrefixAlpha+"hostname"] = strings.Join(hosts, ",")
	case 1:
		var lb corev1.LoadBalancerIngress
		if w.rng.IntN(5) == 0 {
			lb.Hostname = fmt.Sprintf("lb%d.example.net", w.rng.IntN(3))
		} else {
			lb.IP = fmt.Sprintf("192.0.2.%d", 10+w.rng.IntN(5))
		}
		svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{lb}
	case 2:
		svc.Annotations[source.PrefixGA+"ttl"] = strconv.Itoa(60 * (1 + w.rng.IntN(3)))
	case 3:
		if w.rng.IntN(2) == 0 {
			svc.Annotations[source.PrefixGA+"ttl"] = "later" // a problem on the object; the rest publishes
		} else {
			delete(svc.Annotations, source.PrefixGA+"ttl")
		}
	}
	if err := w.services.Update(svc); err != nil {
		w.t.Fatal(err)
	}
	w.mark(resource)
}

// reshape changes one aspect of an Ingress: its hosts (a rename), its address (an IP or a load
// balancer's name: A against CNAME), the hostname or ttl annotation, or a malformed annotation.
func (w *propertyWorld) reshape(ing *networkingv1.Ingress) {
	switch w.rng.IntN(6) {
	case 0, 1:
		ing.Spec.Rules = nil
		for range w.rng.IntN(3) {
			ing.Spec.Rules = append(ing.Spec.Rules, networkingv1.IngressRule{Host: w.host()})
		}
	case 2:
		var lb networkingv1.IngressLoadBalancerIngress
		if w.rng.IntN(4) == 0 {
			lb.Hostname = fmt.Sprintf("lb%d.example.net", w.rng.IntN(3))
		} else {
			lb.IP = fmt.Sprintf("192.0.2.%d", 1+w.rng.IntN(5))
		}
		ing.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{lb}
	case 3:
		if w.rng.IntN(2) == 0 {
			ing.Annotations[source.PrefixAlpha+"hostname"] = w.host()
		} else {
			delete(ing.Annotations, source.PrefixAlpha+"hostname")
		}
	case 4:
		ing.Annotations[source.PrefixGA+"ttl"] = strconv.Itoa(60 * (1 + w.rng.IntN(3)))
	case 5:
		if w.rng.IntN(2) == 0 {
			ing.Annotations[source.PrefixGA+"ttl"] = "soon" // a problem on the object; the rest publishes
		} else {
			delete(ing.Annotations, source.PrefixGA+"ttl")
		}
	}
}

// fullPlan is a fresh plan over every desired endpoint and every cached record.
func (w *propertyWorld) fullPlan() plan.Result {
	res, err := w.oracle.Endpoints(context.Background())
	if err != nil {
		w.t.Fatal(err)
	}
	current, ok := w.reg.CachedRecords()
	if !ok { // the registry dropped its cache (a rejection it could not match): list, as the next run will
		if current, err = w.reg.Records(context.Background()); err != nil {
			w.t.Fatal(err)
		}
	}
	return plan.Calculate(plan.Input{Desired: res.Endpoints, Current: current, OwnerID: "test", Policy: plan.PolicySync})
}

// notHeldBack is changes without those the retry book holds back now (holdBack without its upkeep).
func (w *propertyWorld) notHeldBack(c *plan.Changes) *plan.Changes {
	return w.c.retries.notWaiting(c, w.clock)
}

// within is the part of want that got holds, when got holds nothing else: what a guard let through
// of a plan. Otherwise it returns want, for the difference to show.
func within(want, got *plan.Changes) *plan.Changes {
	keys := map[string]bool{}
	for _, list := range [][]*endpoint.Endpoint{got.Create, got.UpdateNew, got.Delete} {
		for _, e := range list {
			keys[e.Key().String()] = true
		}
	}
	out := &plan.Changes{}
	n := 0
	for _, e := range want.Create {
		if keys[e.Key().String()] {
			out.Create, n = append(out.Create, e), n+1
		}
	}
	for i, e := range want.UpdateNew {
		if keys[e.Key().String()] {
			out.UpdateOld, out.UpdateNew, n = append(out.UpdateOld, want.UpdateOld[i]), append(out.UpdateNew, e), n+1
		}
	}
	for _, e := range want.Delete {
		if keys[e.Key().String()] {
			out.Delete, n = append(out.Delete, e), n+1
		}
	}
	if n != got.Len() {
		return want
	}
	return out
}

// runEvent runs the controller as an event's debounce would, and returns its report.
func (w *propertyWorld) runEvent(ctx context.Context, step int) Report {
	var got Report
	w.c.settings.Observer = observerFunc(func(r Report) { got = r })
	w.c.trigger = TriggerEvent
	if _, err := w.c.runOnce(ctx, true); err != nil {
		w.t.Fatalf("step %d: %v", step, err)
	}
	if got.Changes == nil {
		w.t.Fatalf("step %d: no changes reported", step)
	}
	return got
}

// diffChanges compares two change sets as sets of records.
func diffChanges(want, got *plan.Changes) string {
	var out string
	for _, l := range []struct {
		name      string
		want, got []*endpoint.Endpoint
	}{{"create", want.Create, got.Create}, {"update old", want.UpdateOld, got.UpdateOld},
		{"update new", want.UpdateNew, got.UpdateNew}, {"delete", want.Delete, got.Delete}} {
		w, g := recordStrings(l.want), recordStrings(l.got)
		if !slices.Equal(w, g) {
			out += fmt.Sprintf("%s: full plan %v\n%s: event plan %v\n", l.name, w, l.name, g)
		}
	}
	return out
}

func recordStrings(eps []*endpoint.Endpoint) []string {
	out := make([]string, len(eps))
	for i, e := range eps {
		out[i] = e.String() + " " + fmt.Sprint(e.Labels)
	}
	slices.Sort(out)
	return out
}

// mark marks an object as its informer event does through Run's handler: marked, then counted.
func (w *propertyWorld) mark(resource string) {
	w.c.dirty.mark(resource)
	w.c.sourceEventCount.Add(1)
}

// checkIdleMemo: whenever the controller holds an idle memo after an event's run, it must be what a
// plan of everything says now (after): nothing to change, the same conflicts, owner mismatches and
// held changes, and the desired count and problems of a listing of the sources. Now and then a
// resync runs: with no event since the memo, it must reuse it; without a memo, it makes one when a
// full plan changes nothing.
func (w *propertyWorld) checkIdleMemo(ctx context.Context, step int, after plan.Result) {
	m := w.c.idle
	if m.valid {
		if !m.hashed {
			w.carried++
		}
		if after.Changes.HasChanges() {
			w.t.Fatalf("step %d: the controller keeps an idle memo, but a full plan would change %s", step, describe(after.Changes))
		}
		if !reflect.DeepEqual(m.result.Conflicts, after.Conflicts) || !reflect.DeepEqual(m.result.OwnerMismatches, after.OwnerMismatches) ||
			!reflect.DeepEqual(m.result.HeldByPolicy, after.HeldByPolicy) {
			w.t.Fatalf("step %d: the idle memo's plan differs from a full plan's:\nconflicts %+v\n     want %+v\nmismatches %+v\n      want %+v\nheld %+v\nwant %+v",
				step, m.result.Conflicts, after.Conflicts, m.result.OwnerMismatches, after.OwnerMismatches, m.result.HeldByPolicy, after.HeldByPolicy)
		}
		res, err := w.oracle.Endpoints(ctx)
		if err != nil {
			w.t.Fatal(err)
		}
		if m.desiredCount != len(res.Endpoints) {
			w.t.Fatalf("step %d: the idle memo counts %d desired endpoints, a listing %d", step, m.desiredCount, len(res.Endpoints))
		}
		if got, want := problemSet(m.problems), problemSet(res.Problems); !slices.Equal(got, want) {
			w.t.Fatalf("step %d: the idle memo's problems\n%v\nwant a listing's\n%v", step, got, want)
		}
	}
	if w.rng.IntN(10) != 0 {
		return
	}
	var got Report
	w.c.settings.Observer = observerFunc(func(r Report) { got = r })
	w.c.trigger = TriggerResync
	reusable := m.valid && w.c.sourceListing().reusable(m, w.clock)
	if _, err := w.c.runOnce(ctx, false); err != nil {
		w.t.Fatalf("step %d: resync: %v", step, err)
	}
	if reusable {
		w.reused++
		if got.Changes.HasChanges() || !w.c.idle.valid || w.c.idle.listing.at != m.listing.at {
			w.t.Fatalf("step %d: a resync with no event since the idle memo did not reuse it: changes %s, memo kept %t",
				step, describe(got.Changes), w.c.idle.valid)
		}
	}
}

// problemSet is the problems as sorted strings: a listing orders them by source, a kept memo by run.
func problemSet(problems []endpoint.Problem) []string {
	out := make([]string, len(problems))
	for i, p := range problems {
		out[i] = p.Error()
	}
	slices.Sort(out)
	return out
}

func describe(c *plan.Changes) string {
	if c == nil {
		return "nothing"
	}
	return strings.Join(append(append(recordStrings(c.Create), recordStrings(c.UpdateNew)...), recordStrings(c.Delete)...), ", ")
}
