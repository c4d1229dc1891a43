package controller

import (
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// The index keeps its endpoints without the resource label's map; at must give back exactly what the
// sources made: the resource label alone, other labels and properties untouched, an endpoint of no
// object without labels, and nothing of one object under another's name.
func TestDesiredIndexGivesBackWhatTheSourcesMade(t *testing.T) {
	plain := a("web.example.com", "192.0.2.1", "ingress/default/web")
	labelled := a("api.example.com", "192.0.2.2", "ingress/default/api").WithLabel("team", "blue")
	labelled.SetProviderSpecific("alias", "true")
	twoNames := []*endpoint.Endpoint{a("x.example.com", "192.0.2.3", "service/default/x"), a("y.example.com", "192.0.2.4", "service/default/x")}
	orphan := endpoint.New("orphan.example.com", endpoint.RecordTypeA, "192.0.2.5")
	orphan.Labels = nil
	emptyLabels := endpoint.New("empty.example.com", endpoint.RecordTypeA, "192.0.2.6") // Labels{}: no resource
	eps := append([]*endpoint.Endpoint{plain, labelled, orphan, emptyLabels}, twoNames...)
	want := make(map[string]*endpoint.Endpoint, len(eps))
	for _, e := range eps {
		want[e.DNSName] = e.DeepCopy()
	}

	var x desiredIndex
	x.rebuild(eps)
	check := func(names ...string) {
		t.Helper()
		scope := map[string]bool{}
		for _, n := range names {
			scope[n] = true
		}
		got := x.at(scope)
		if len(got) != len(names) {
			t.Fatalf("at(%v): %d endpoints, want %d", names, len(got), len(names))
		}
		for _, e := range got {
			if !reflect.DeepEqual(e, want[e.DNSName]) {
				t.Errorf("at: %s is %+v, the source made %+v", e.DNSName, e, want[e.DNSName])
			}
		}
	}
	check("web.example.com", "api.example.com", "orphan.example.com", "empty.example.com", "x.example.com", "y.example.com")
	if got := x.names("service/default/x"); !slices.Equal(slices.Sorted(slices.Values(got)), []string{"x.example.com", "y.example.com"}) {
		t.Errorf("names of service/default/x: %v", got)
	}

	// An event's new endpoints replace the object's; a label it gains shows, one it loses is gone.
	moved := a("web2.example.com", "192.0.2.9", "ingress/default/web").WithLabel("team", "red")
	want[moved.DNSName] = moved.DeepCopy()
	x.replace("ingress/default/web", []*endpoint.Endpoint{moved})
	check("web2.example.com", "api.example.com")
	if got := x.at(map[string]bool{"web.example.com": true}); len(got) != 0 {
		t.Errorf("web.example.com after the move: %v", got)
	}
	x.replace("ingress/default/web", []*endpoint.Endpoint{a("web.example.com", "192.0.2.1", "ingress/default/web")})
	check("web.example.com")
	if x.total != len(eps) {
		t.Errorf("total %d, want %d", x.total, len(eps))
	}

	// A restored resource label is the caller's: changing it leaves the index as it was.
	got := x.at(map[string]bool{"web.example.com": true})
	got[0].Labels["changed"] = "yes"
	got[0].DNSName = "changed.example.com"
	check("web.example.com")
}

// TestDesiredIndexRetainedBytes bounds the heap the index keeps once the sources' endpoints it was
// built from are dropped, per endpoint (one object with one name each, as Ingresses make), the
// endpoints' strings included: 219 bytes since an object's one plain endpoint is kept as its name,
// target, TTL and type byte and a name of one object maps to that object alone, 342 when it kept a
// slice of endpoint copies per object and of objects per name, 686 when it kept the sources' endpoints
// with their label maps. Fails above 250.
func TestDesiredIndexRetainedBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes 100,000 endpoints")
	}
	const n = 100_000
	before := testbed.LiveHeap()
	eps := make([]*endpoint.Endpoint, n)
	for i := range eps {
		// The source's shape (internal/source recordMeta.fill): one endpoint, its targets, a label map.
		eps[i] = &endpoint.Endpoint{DNSName: fmt.Sprintf("h%06d.example.com", i), RecordType: endpoint.RecordTypeA,
			Targets: endpoint.Targets{fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)},
			Labels:  endpoint.Labels{endpoint.ResourceLabelKey: fmt.Sprintf("ingress/default/web-%06d", i)}}
	}
	var x desiredIndex
	x.rebuild(eps)
	eps = nil
	after := testbed.LiveHeap()
	perEndpoint := float64(int64(after)-int64(before)) / n
	runtime.KeepAlive(&x)
	t.Logf("%.0f bytes per endpoint kept by the desired index (its copies, names and resource strings included)", perEndpoint)
	if perEndpoint > 250 {
		t.Errorf("%.0f bytes per endpoint, want at most 250", perEndpoint)
	}
}

// TestDesiredIndexNamesOfSeveralObjects: a name several objects have endpoints at gives each of them,
// and keeps giving the others as they leave it one by one.
func TestDesiredIndexNamesOfSeveralObjects(t *testing.T) {
	web := func(ip, resource string) *endpoint.Endpoint { return a("web.example.com", ip, resource) }
	var x desiredIndex
	x.rebuild([]*endpoint.Endpoint{web("192.0.2.1", "ingress/default/a"), web("192.0.2.2", "ingress/default/b"),
		a("api.example.com", "192.0.2.9", "ingress/default/c")})
	at := func() []string {
		var out []string
		for _, e := range x.at(map[string]bool{"web.example.com": true}) {
			out = append(out, e.Resource()+"="+e.Targets[0])
		}
		slices.Sort(out)
		return out
	}
	steps := []struct {
		resource string
		eps      []*endpoint.Endpoint
		want     []string
	}{
		{"", nil, []string{"ingress/default/a=192.0.2.1", "ingress/default/b=192.0.2.2"}},
		{"ingress/default/c", []*endpoint.Endpoint{web("192.0.2.3", "ingress/default/c")}, []string{"ingress/default/a=192.0.2.1", "ingress/default/b=192.0.2.2", "ingress/default/c=192.0.2.3"}},
		{"ingress/default/a", nil, []string{"ingress/default/b=192.0.2.2", "ingress/default/c=192.0.2.3"}},
		{"ingress/default/b", nil, []string{"ingress/default/c=192.0.2.3"}},
		{"ingress/default/a", []*endpoint.Endpoint{web("192.0.2.4", "ingress/default/a")}, []string{"ingress/default/a=192.0.2.4", "ingress/default/c=192.0.2.3"}},
		{"ingress/default/c", []*endpoint.Endpoint{a("api.example.com", "192.0.2.9", "ingress/default/c")}, []string{"ingress/default/a=192.0.2.4"}},
		{"ingress/default/a", nil, nil},
	}
	for i, s := range steps {
		if s.resource != "" {
			x.replace(s.resource, s.eps)
		}
		if got := at(); !slices.Equal(got, s.want) {
			t.Errorf("step %d: web.example.com gives %v, want %v", i, got, s.want)
		}
	}
	if got := x.at(map[string]bool{"api.example.com": true}); len(got) != 1 || x.total != 1 {
		t.Errorf("api.example.com gives %d endpoints (want 1), total %d (want 1)", len(got), x.total)
	}
	if len(x.byName)+len(x.sharedNames) != 1 {
		t.Errorf("names left indexed: %v %v", x.byName, x.sharedNames)
	}
}

// TestIndexedEndpointKeepsEveryField: an object's one plain endpoint is kept field by field; a field
// added to endpoint.Endpoint must be kept too (plainEndpoint, isPlain), then counted here; so must a
// record type plainEndpoint keeps.
func TestIndexedEndpointKeepsEveryField(t *testing.T) {
	if n := reflect.TypeFor[endpoint.Endpoint]().NumField(); n != 7 {
		t.Errorf("endpoint.Endpoint has %d fields, the index knows of 7: keep the new ones in indexedObject or make plainEndpoint refuse them", n)
	}
	e := endpoint.NewWithTTL("web.example.com", endpoint.RecordTypeCNAME, 300, "lb.example.net").WithLabel(endpoint.ResourceLabelKey, "ingress/default/web")
	two := endpoint.New("api.example.com", endpoint.RecordTypeA, "192.0.2.1", "192.0.2.2").WithLabel(endpoint.ResourceLabelKey, "ingress/default/api")
	var x desiredIndex
	x.rebuild([]*endpoint.Endpoint{e, two})
	for _, rt := range []string{endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME, endpoint.RecordTypeTXT} {
		if got := plainTypeOf(rt).String(); got != rt && (got != "" || rt != endpoint.RecordTypeTXT) {
			t.Errorf("record type %s kept as %q", rt, got)
		}
	}
	if _, ok := x.plain["ingress/default/web"]; !ok {
		t.Fatalf("a plain endpoint kept as a copy: %+v", x.others)
	}
	if _, ok := x.others["ingress/default/api"]; !ok {
		t.Fatalf("an endpoint of two targets kept as a plain one: %+v", x.plain)
	}
	for _, want := range []*endpoint.Endpoint{e, two} {
		if got := x.at(map[string]bool{want.DNSName: true}); len(got) != 1 || !reflect.DeepEqual(got[0], want) {
			t.Errorf("at gives %+v, the source made %+v", got, want)
		}
	}
}
