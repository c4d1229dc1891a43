package source

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/reference"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// defaultIngressTransform is the Ingress informer's transform without a template: compact Ingresses.
func defaultIngressTransform(t testing.TB) cache.TransformFunc {
	t.Helper()
	c, err := compile(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	return ingressTransform(c)
}

// cachedIngressCases are Ingresses that exercise every field the Ingress source reads: rule and TLS
// hosts (with a bad one each, so that problems name their index, and an empty rule host), status IPs
// and hostnames, annotations the source reads and one it does not, labels, the class by field and by
// annotation, and several namespaces.
func cachedIngressCases() []*networkingv1.Ingress {
	class, other := "nginx", "traefik"
	var out []*networkingv1.Ingress
	for i := range 6 {
		ns := fmt.Sprintf("team-%d", i%3)
		ing := &networkingv1.Ingress{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("web-%d", i), Namespace: ns, UID: types.UID(fmt.Sprint("uid-", i)),
				ResourceVersion: fmt.Sprint(100 + i), Generation: 4, CreationTimestamp: memCreated,
				Labels:      map[string]string{"app": "web", "tier": fmt.Sprint(i % 2)},
				Annotations: map[string]string{PrefixGA + "ttl": "120", "example.com/unrelated": "x"}},
			Spec: networkingv1.IngressSpec{
				Rules: []networkingv1.IngressRule{{Host: fmt.Sprintf("a-%d.example.com", i)}, {}, {Host: "bad_host!.example.com"}},
				TLS: []networkingv1.IngressTLS{{Hosts: []string{fmt.Sprintf("a-%d.example.com", i), fmt.Sprintf("tls-%d.example.com", i)}},
					{Hosts: []string{"-bad.example.com"}}},
			},
			Status: networkingv1.IngressStatus{LoadBalancer: networkingv1.IngressLoadBalancerStatus{Ingress: []networkingv1.IngressLoadBalancerIngress{
				{IP: fmt.Sprintf("203.0.113.%d", 10+i)}, {Hostname: "lb.example.net"}}}},
		}
		switch i % 3 {
		case 0:
			ing.Spec.IngressClassName = &class
		case 1:
			ing.Spec.IngressClassName = &other
			ing.Annotations[PrefixAlpha+"hostname"] = fmt.Sprintf("extra-%d.example.com", i)
		case 2:
			ing.Annotations["kubernetes.io/ingress.class"] = class
			ing.Annotations[PrefixAlpha+"target"] = "198.51.100.7"
		}
		out = append(out, ing)
	}
	return out
}

// sourceOver is an Ingress source with cfg over a store filled with ings through transform.
func sourceOver(t *testing.T, cfg Config, transform cache.TransformFunc, ings []*networkingv1.Ingress) *IngressSource {
	t.Helper()
	c, err := compile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	store, _, err := IngressInformerStore(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, ing := range ings {
		obj, err := transform(ing.DeepCopy())
		if err != nil {
			t.Fatal(err)
		}
		if err := store.Add(obj); err != nil {
			t.Fatal(err)
		}
	}
	return &IngressSource{c: c, ingresses: storeIngresses{store}, live: true}
}

// TestCachedIngressReadersReadKeptFieldsOnly: every reader of the Ingress informer's cache reads the
// compact Ingress correctly — the source's endpoints and problems over all of them and over some
// (ObjectEndpoints), under an Ingress class, label and annotation filter and without, are those of the
// whole Ingresses; the Event reference has the kind, API version, namespace, name, UID and
// resourceVersion; the update filter tells a resourceVersion-only change from a host change. A reader
// reading a field the compact type does not keep fails the test: its getters of dropped fields panic,
// and the compact type has no spec or status a reader could take for empty.
func TestCachedIngressReadersReadKeptFieldsOnly(t *testing.T) {
	ings := cachedIngressCases()
	ctx := context.Background()
	for _, cfg := range []Config{DefaultConfig(), func() Config {
		cfg := DefaultConfig()
		cfg.IngressClassNames = []string{"nginx"}
		cfg.LabelFilter = "app=web,tier=0"
		return cfg
	}(), func() Config {
		cfg := DefaultConfig()
		cfg.AnnotationFilter = PrefixGA + "ttl=120"
		return cfg
	}()} {
		c, err := compile(cfg)
		if err != nil {
			t.Fatal(err)
		}
		compact := sourceOver(t, cfg, ingressTransform(c), ings)
		whole := sourceOver(t, cfg, informerTransform(), ings)
		if _, ok := compact.ingresses.(storeIngresses).store.List()[0].(*cachedIngress); !ok {
			t.Fatalf("the Ingress transform keeps a %T", compact.ingresses.(storeIngresses).store.List()[0])
		}
		got, err := compact.Endpoints(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want, err := whole.Endpoints(ctx)
		if err != nil {
			t.Fatal(err)
		}
		sameResult(t, "Endpoints "+fmt.Sprint(cfg.IngressClassNames, cfg.LabelFilter, cfg.AnnotationFilter), got, want)
		resources := []string{"ingress/team-1/web-1", "ingress/team-0/web-3", "ingress/team-0/web-0", "ingress/team-2/gone"}
		got, err = compact.ObjectEndpoints(ctx, resources)
		if err != nil {
			t.Fatal(err)
		}
		want, err = whole.ObjectEndpoints(ctx, resources)
		if err != nil {
			t.Fatal(err)
		}
		sameResult(t, "ObjectEndpoints", got, want)
	}

	// Both stores are read through the compact fields, so what each field gives is also spelled out:
	// rule and TLS hosts, status IP and hostname, the ttl, hostname and target annotations, problems
	// naming the object's own indexes; and the class (by field and by annotation) and label filters.
	s := sourceOver(t, DefaultConfig(), defaultIngressTransform(t), ings)
	for resource, want := range map[string][]string{
		"ingress/team-0/web-0": {"a-0.example.com A 203.0.113.10 ttl=120 res=ingress/team-0/web-0",
			"a-0.example.com CNAME lb.example.net ttl=120 res=ingress/team-0/web-0",
			"tls-0.example.com A 203.0.113.10 ttl=120 res=ingress/team-0/web-0",
			"tls-0.example.com CNAME lb.example.net ttl=120 res=ingress/team-0/web-0"},
		"ingress/team-1/web-1": {"a-1.example.com A 203.0.113.11 ttl=120 res=ingress/team-1/web-1",
			"a-1.example.com CNAME lb.example.net ttl=120 res=ingress/team-1/web-1",
			"extra-1.example.com A 203.0.113.11 ttl=120 res=ingress/team-1/web-1",
			"extra-1.example.com CNAME lb.example.net ttl=120 res=ingress/team-1/web-1",
			"tls-1.example.com A 203.0.113.11 ttl=120 res=ingress/team-1/web-1",
			"tls-1.example.com CNAME lb.example.net ttl=120 res=ingress/team-1/web-1"},
		"ingress/team-2/web-2": {"a-2.example.com A 198.51.100.7 ttl=120 res=ingress/team-2/web-2",
			"tls-2.example.com A 198.51.100.7 ttl=120 res=ingress/team-2/web-2"},
	} {
		r, err := s.ObjectEndpoints(ctx, []string{resource})
		if err != nil {
			t.Fatal(err)
		}
		expectEndpoints(t, r.Endpoints, want...)
		var fields []string
		for _, p := range r.Problems {
			fields = append(fields, p.Field)
		}
		if strings.Join(fields, " ") != "spec.rules[2].host spec.tls[1].hosts[0]" {
			t.Errorf("%s: problems on %v, want spec.rules[2].host and spec.tls[1].hosts[0]", resource, fields)
		}
	}
	filtered := DefaultConfig()
	filtered.IngressClassNames = []string{"nginx"}
	filtered.LabelFilter = "tier=0"
	r, err := sourceOver(t, filtered, defaultIngressTransform(t), ings).Endpoints(ctx)
	if err != nil {
		t.Fatal(err)
	}
	admitted := map[string]bool{}
	for _, ep := range r.Endpoints {
		admitted[ep.Labels[endpoint.ResourceLabelKey]] = true
	}
	if len(admitted) != 2 || !admitted["ingress/team-0/web-0"] || !admitted["ingress/team-2/web-2"] {
		t.Errorf("class nginx (field or annotation) and tier=0 admit %v, want team-0/web-0 and team-2/web-2", admitted)
	}

	obj, ok := s.LookupObject("ingress", "team-1", "web-4")
	if !ok {
		t.Fatal("LookupObject(ingress, team-1, web-4) found nothing")
	}
	ref, err := reference.GetReference(scheme.Scheme, obj)
	if err != nil {
		t.Fatalf("Event reference of a compact Ingress: %v", err)
	}
	if ref.Kind != "Ingress" || ref.APIVersion != "networking.k8s.io/v1" || ref.Namespace != "team-1" || ref.Name != "web-4" ||
		ref.UID != "uid-4" || ref.ResourceVersion != "104" {
		t.Errorf("Event reference %+v", ref)
	}

	transform := defaultIngressTransform(t)
	cached := func(ing *networkingv1.Ingress) any {
		obj, err := transform(ing)
		if err != nil {
			t.Fatal(err)
		}
		return obj
	}
	old := cached(ings[0].DeepCopy())
	bumped := ings[0].DeepCopy()
	bumped.ResourceVersion, bumped.Generation = "999", 5
	moved := ings[0].DeepCopy()
	moved.ResourceVersion = "1000"
	moved.Spec.Rules[0].Host = "moved.example.com"
	relabelled := ings[0].DeepCopy()
	relabelled.ResourceVersion = "1001"
	relabelled.Labels["tier"] = "9"
	if !unchanged(old, cached(bumped)) {
		t.Error("an update of the resourceVersion and generation only counts as a change")
	}
	if unchanged(old, cached(moved)) || unchanged(old, cached(relabelled)) {
		t.Error("an update of a rule's host or a label counts as no change")
	}
	if again, _ := transform(old); again != old {
		t.Error("the transform does not keep an Ingress already compact")
	}
}

// sameResult fails unless two results have the same endpoints and problems.
func sameResult(t *testing.T, what string, got, want Result) {
	t.Helper()
	if g, w := render(got.Endpoints), render(want.Endpoints); strings.Join(g, "\n") != strings.Join(w, "\n") {
		t.Errorf("%s over compact Ingresses:\n  %s\nover whole ones:\n  %s", what, strings.Join(g, "\n  "), strings.Join(w, "\n  "))
	}
	if !reflect.DeepEqual(got.Problems, want.Problems) {
		t.Errorf("%s problems over compact Ingresses %v, over whole ones %v", what, got.Problems, want.Problems)
	}
	if len(want.Endpoints) == 0 || len(want.Problems) == 0 {
		t.Errorf("%s: %d endpoints, %d problems: the cases exercise nothing", what, len(want.Endpoints), len(want.Problems))
	}
}

// TestCachedIngressDroppedFieldsPanic: the metav1.Object getters and setters of the fields the compact
// Ingress does not keep panic, naming the field, rather than answer empty.
func TestCachedIngressDroppedFieldsPanic(t *testing.T) {
	obj, err := defaultIngressTransform(t)(cachedIngressCases()[0])
	if err != nil {
		t.Fatal(err)
	}
	m := obj.(metav1.Object)
	for field, read := range map[string]func(){
		"generation": func() { m.GetGeneration() }, "creationTimestamp": func() { m.GetCreationTimestamp() },
		"deletionTimestamp": func() { m.GetDeletionTimestamp() }, "ownerReferences": func() { m.GetOwnerReferences() },
		"finalizers": func() { m.GetFinalizers() }, "managedFields": func() { m.GetManagedFields() },
		"generateName": func() { m.GetGenerateName() }, "selfLink": func() { m.GetSelfLink() },
		"deletionGracePeriodSeconds": func() { m.GetDeletionGracePeriodSeconds() },
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "metadata."+field) {
					t.Errorf("reading metadata.%s of a compact Ingress: %v, want a panic naming it", field, r)
				}
			}()
			read()
		}()
	}
	cp := obj.(*cachedIngress).DeepCopyObject().(*cachedIngress)
	cp.Labels["app"], cp.Rules[0], cp.TLS[0][0], cp.Addresses[0].IP, *cp.Class = "x", "x", "x", "x", "x"
	orig := obj.(*cachedIngress)
	if orig.Labels["app"] == "x" || orig.Rules[0] == "x" || orig.TLS[0][0] == "x" || orig.Addresses[0].IP == "x" || *orig.Class == "x" {
		t.Error("DeepCopyObject shares state with the cached Ingress")
	}
}

// TestIngressTemplateSeesWholeIngress: with --fqdn-template the Ingress informer keeps whole Ingresses,
// so a template reads any field, as external-dns's does (here metadata.generation, which the compact
// type drops, and the default backend and a rule's path, which the cut-down Ingress drops); and a
// compact Ingress handed to the template pass all the same is a problem naming the flag, never names
// rendered from missing fields.
func TestIngressTemplateSeesWholeIngress(t *testing.T) {
	cfg := DefaultConfig()
	cfg.FQDNTemplate = "{{.Name}}-g{{.Generation}}.{{.Spec.DefaultBackend.Service.Name}}{{range .Spec.Rules}}{{range .HTTP.Paths}}" +
		"{{.Backend.Service.Name}}{{end}}{{end}}.{{.Namespace}}.example.com"
	c, err := compile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", Generation: 7},
		Spec: networkingv1.IngressSpec{
			DefaultBackend: &networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "fallback"}},
			Rules: []networkingv1.IngressRule{{IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
				Paths: []networkingv1.HTTPIngressPath{{Path: "/", Backend: networkingv1.IngressBackend{
					Service: &networkingv1.IngressServiceBackend{Name: "-api"}}}}}}}},
		},
		Status: networkingv1.IngressStatus{LoadBalancer: networkingv1.IngressLoadBalancerStatus{
			Ingress: []networkingv1.IngressLoadBalancerIngress{{IP: "203.0.113.10"}}}}}
	obj, err := ingressTransform(c)(ing.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := obj.(*networkingv1.Ingress); !ok {
		t.Fatalf("with --fqdn-template the Ingress informer keeps a %T", obj)
	}
	r, err := sourceOver(t, cfg, ingressTransform(c), []*networkingv1.Ingress{ing}).Endpoints(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	expectNoProblems(t, r)
	expectEndpoints(t, r.Endpoints, "web-g7.fallback-api.shop.example.com A 203.0.113.10 res=ingress/shop/web")

	var problems problemList
	eps := c.cachedIngressEndpoints(compactIngress(ing), nil, &problems)
	if len(eps) != 0 || len(problems.items) != 1 || problems.items[0].Field != "--fqdn-template" {
		t.Errorf("template over a compact Ingress: endpoints %v, problems %v; want none and one naming --fqdn-template", eps, problems.items)
	}
}

// TestCompactIngressBytes measures a cached Ingress (memIngress, decoded from its own JSON, in the
// Ingress informer's store) kept whole, as with a template, and compact, and fails unless the compact
// type saves at least 250 bytes an Ingress (312 when it came: 1,482 -> 1,170).
func TestCompactIngressBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("fills caches with thousands of objects")
	}
	const n = 2000
	indexers := ingressInformer(newInformerFactory(nil, "")).GetIndexer().GetIndexers()
	fill := func(transform cache.TransformFunc) float64 {
		return heapPerObjectIndexed(t, n, indexers, func(idx cache.Indexer, i int) {
			raw, err := json.Marshal(memIngress(i))
			if err != nil {
				t.Fatal(err)
			}
			obj := &networkingv1.Ingress{}
			if err := json.Unmarshal(raw, obj); err != nil {
				t.Fatal(err)
			}
			o, err := transform(obj)
			if err != nil {
				t.Fatal(err)
			}
			if err := idx.Add(o); err != nil {
				t.Fatal(err)
			}
		})
	}
	whole, compact := fill(informerTransform()), fill(defaultIngressTransform(t))
	t.Logf("cached Ingress: %.0f B whole, %.0f B compact", whole, compact)
	if whole-compact < 250 {
		t.Errorf("%.0f bytes per compact cached Ingress, %.0f whole: less than 250 saved", compact, whole)
	}
}
