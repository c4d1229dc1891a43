// Package gatewaytest builds Gateway API objects for tests and creates them, status included, on a
// real API server, as a Gateway controller would have left them. The source's own tests and the
// differential test against external-dns share it.
package gatewaytest

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/gateway-api/apis/v1alpha2"
	gwclient "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned"
)

// ControllerName is the controller the route statuses name.
const ControllerName = "example.net/gateway-controller"

// Namespace is a namespace with labels (for allowedRoutes selectors).
type Namespace struct {
	Name   string
	Labels map[string]string
}

// Gateway is a Gateway with its status addresses.
type Gateway struct {
	Namespace, Name     string
	Labels, Annotations map[string]string
	Listeners           []Listener
	// Addresses go to status.addresses: IP addresses as IPAddress, "named:x" as NamedAddress x,
	// others as Hostname.
	Addresses []string
	// AllowedListeners is spec.allowedListeners.namespaces.from ("" leaves it out: None); with
	// Selector, ListenerSelector is its matchLabels.
	AllowedListeners gwv1.FromNamespaces
	ListenerSelector map[string]string
}

// ListenerSet is a gateway.networking.k8s.io/v1 ListenerSet (Gateway API v1.5) with its status.
type ListenerSet struct {
	Namespace, Name string
	Annotations     map[string]string
	// Gateway is the parent: "namespace/name", or "name" in the ListenerSet's namespace.
	Gateway   string
	Listeners []Listener
	// Accepted is the ListenerSet's Accepted condition ("" for no status); NotAccepted names
	// listeners whose own Accepted condition is False.
	Accepted    metav1.ConditionStatus
	NotAccepted []string
}

// Listener is one listener. From is Same (default), All or Selector (with Selector as matchLabels).
type Listener struct {
	Name     string
	Hostname string
	Port     int32
	Protocol gwv1.ProtocolType
	From     gwv1.FromNamespaces
	Selector map[string]string
	// Kinds restricts allowedRoutes.kinds (group gateway.networking.k8s.io).
	Kinds []string
}

// Route is a route of any kind: HTTPRoute, GRPCRoute, TLSRoute, TCPRoute or UDPRoute.
type Route struct {
	Kind                string
	Namespace, Name     string
	Labels, Annotations map[string]string
	Hostnames           []string // not for TCPRoute and UDPRoute
	Parents             []Parent
}

// Parent is one parent of a route: a spec.parentRefs entry and its status.parents entry.
type Parent struct {
	Namespace string // "" is the route's namespace, left out of the ref
	Name      string
	Section   string
	Port      int32
	Kind      string // "" is Gateway
	// Accepted is the status of the Accepted condition: True, False, or "" for no status entry.
	Accepted metav1.ConditionStatus
	// StatusOnly: the status entry exists but spec.parentRefs does not name the parent.
	StatusOnly bool
}

// Clients talk to the API server.
type Clients struct {
	Kube    kubernetes.Interface
	Gateway gwclient.Interface
	// Dynamic creates ListenerSets (the typed module predates their v1 kind).
	Dynamic dynamic.Interface
}

var listenerSets = schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "listenersets"}

// CreateListenerSets creates ListenerSets and writes their status.
func (c Clients) CreateListenerSets(ctx context.Context, sets []ListenerSet) error {
	for _, ls := range sets {
		gwNS, gwName, found := strings.Cut(ls.Gateway, "/")
		if !found {
			gwNS, gwName = ls.Namespace, ls.Gateway
		}
		var listeners []any
		for _, l := range ls.Listeners {
			lis := l.listener()
			u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&lis)
			if err != nil {
				return err
			}
			listeners = append(listeners, u)
		}
		annotations := map[string]any{}
		for k, v := range ls.Annotations {
			annotations[k] = v
		}
		obj := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "gateway.networking.k8s.io/v1", "kind": "ListenerSet",
			"metadata": map[string]any{"namespace": ls.Namespace, "name": ls.Name, "annotations": annotations},
			"spec":     map[string]any{"parentRef": map[string]any{"name": gwName, "namespace": gwNS}, "listeners": listeners},
		}}
		res := c.Dynamic.Resource(listenerSets).Namespace(ls.Namespace)
		created, err := res.Create(ctx, obj, metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("ListenerSet %s/%s: %w", ls.Namespace, ls.Name, err)
		}
		if ls.Accepted == "" {
			continue
		}
		cond := func(status metav1.ConditionStatus) map[string]any {
			return map[string]any{"type": "Accepted", "status": string(status), "reason": "Accepted", "message": "set by the test",
				"lastTransitionTime": "2026-01-01T00:00:00Z"}
		}
		var statuses []any
		for _, l := range ls.Listeners {
			st := metav1.ConditionTrue
			for _, n := range ls.NotAccepted {
				if n == l.Name {
					st = metav1.ConditionFalse
				}
			}
			statuses = append(statuses, map[string]any{"name": l.Name, "attachedRoutes": int64(0), "conditions": []any{cond(st)}})
		}
		created.Object["status"] = map[string]any{"conditions": []any{cond(ls.Accepted)}, "listeners": statuses}
		if _, err := res.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("ListenerSet %s/%s status: %w", ls.Namespace, ls.Name, err)
		}
	}
	return nil
}

// DeleteListenerSets deletes ListenerSets.
func (c Clients) DeleteListenerSets(ctx context.Context, sets []ListenerSet) error {
	for _, ls := range sets {
		if err := c.Dynamic.Resource(listenerSets).Namespace(ls.Namespace).Delete(ctx, ls.Name, metav1.DeleteOptions{}); err != nil {
			return err
		}
	}
	return nil
}

// Create creates the namespaces (unless they exist), the Gateways and the routes, and writes their
// status.
func (c Clients) Create(ctx context.Context, nss []Namespace, gws []Gateway, routes []Route) error {
	for _, ns := range nss {
		_, err := c.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns.Name, Labels: ns.Labels}}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("namespace %s: %w", ns.Name, err)
		}
	}
	for _, g := range gws {
		if err := c.createGateway(ctx, g); err != nil {
			return fmt.Errorf("gateway %s/%s: %w", g.Namespace, g.Name, err)
		}
	}
	for _, r := range routes {
		if err := c.createRoute(ctx, r); err != nil {
			return fmt.Errorf("%s %s/%s: %w", r.Kind, r.Namespace, r.Name, err)
		}
	}
	return nil
}

// Delete deletes the Gateways and routes (namespaces stay: no namespace controller runs).
func (c Clients) Delete(ctx context.Context, gws []Gateway, routes []Route) error {
	for _, g := range gws {
		if err := c.Gateway.GatewayV1().Gateways(g.Namespace).Delete(ctx, g.Name, metav1.DeleteOptions{}); err != nil {
			return err
		}
	}
	for _, r := range routes {
		var err error
		switch r.Kind {
		case "HTTPRoute":
			err = c.Gateway.GatewayV1().HTTPRoutes(r.Namespace).Delete(ctx, r.Name, metav1.DeleteOptions{})
		case "GRPCRoute":
			err = c.Gateway.GatewayV1().GRPCRoutes(r.Namespace).Delete(ctx, r.Name, metav1.DeleteOptions{})
		case "TLSRoute":
			err = c.Gateway.GatewayV1alpha2().TLSRoutes(r.Namespace).Delete(ctx, r.Name, metav1.DeleteOptions{})
		case "TCPRoute":
			err = c.Gateway.GatewayV1alpha2().TCPRoutes(r.Namespace).Delete(ctx, r.Name, metav1.DeleteOptions{})
		case "UDPRoute":
			err = c.Gateway.GatewayV1alpha2().UDPRoutes(r.Namespace).Delete(ctx, r.Name, metav1.DeleteOptions{})
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// listener is the API form of l, with the defaults and TLS settings the API server requires.
func (l Listener) listener() gwv1.Listener {
	lis := gwv1.Listener{Name: gwv1.SectionName(l.Name), Port: l.Port, Protocol: l.Protocol}
	if lis.Port == 0 {
		lis.Port = 80
	}
	if lis.Protocol == "" {
		lis.Protocol = gwv1.HTTPProtocolType
	}
	switch lis.Protocol {
	case gwv1.TLSProtocolType:
		mode := gwv1.TLSModePassthrough
		lis.TLS = &gwv1.ListenerTLSConfig{Mode: &mode}
	case gwv1.HTTPSProtocolType:
		mode := gwv1.TLSModeTerminate
		lis.TLS = &gwv1.ListenerTLSConfig{Mode: &mode, CertificateRefs: []gwv1.SecretObjectReference{{Name: "cert"}}}
	}
	if l.Hostname != "" {
		h := gwv1.Hostname(l.Hostname)
		lis.Hostname = &h
	}
	if l.From != "" || len(l.Kinds) > 0 {
		lis.AllowedRoutes = &gwv1.AllowedRoutes{}
		if l.From != "" {
			from := l.From
			lis.AllowedRoutes.Namespaces = &gwv1.RouteNamespaces{From: &from}
			if from == gwv1.NamespacesFromSelector {
				lis.AllowedRoutes.Namespaces.Selector = &metav1.LabelSelector{MatchLabels: l.Selector}
			}
		}
		for _, k := range l.Kinds {
			lis.AllowedRoutes.Kinds = append(lis.AllowedRoutes.Kinds, gwv1.RouteGroupKind{Kind: gwv1.Kind(k)})
		}
	}
	return lis
}

func (c Clients) createGateway(ctx context.Context, g Gateway) error {
	gw := &gwv1.Gateway{
		ObjectMeta: metav1.ObjectMeta{Namespace: g.Namespace, Name: g.Name, Labels: g.Labels, Annotations: g.Annotations},
		Spec:       gwv1.GatewaySpec{GatewayClassName: "test"},
	}
	for _, l := range g.Listeners {
		gw.Spec.Listeners = append(gw.Spec.Listeners, l.listener())
	}
	if g.AllowedListeners != "" {
		from := g.AllowedListeners
		gw.Spec.AllowedListeners = &gwv1.AllowedListeners{Namespaces: &gwv1.ListenerNamespaces{From: &from}}
		if from == gwv1.NamespacesFromSelector {
			gw.Spec.AllowedListeners.Namespaces.Selector = &metav1.LabelSelector{MatchLabels: g.ListenerSelector}
		}
	}
	created, err := c.Gateway.GatewayV1().Gateways(g.Namespace).Create(ctx, gw, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	if len(g.Addresses) == 0 {
		return nil
	}
	for _, a := range g.Addresses {
		t := gwv1.HostnameAddressType
		if isIP(a) {
			t = gwv1.IPAddressType
		} else if named, ok := strings.CutPrefix(a, "named:"); ok {
			t, a = gwv1.NamedAddressType, named
		}
		created.Status.Addresses = append(created.Status.Addresses, gwv1.GatewayStatusAddress{Type: &t, Value: a})
	}
	_, err = c.Gateway.GatewayV1().Gateways(g.Namespace).UpdateStatus(ctx, created, metav1.UpdateOptions{})
	return err
}

func isIP(s string) bool {
	for _, c := range s {
		if c == ':' {
			return true
		}
		if (c < '0' || c > '9') && c != '.' {
			return false
		}
	}
	return true
}

// refsAndStatus builds spec.parentRefs and status.parents.
func refsAndStatus(r Route) ([]gwv1.ParentReference, gwv1.RouteStatus) {
	var refs []gwv1.ParentReference
	var st gwv1.RouteStatus
	for _, p := range r.Parents {
		ref := gwv1.ParentReference{Name: gwv1.ObjectName(p.Name)}
		if p.Namespace != "" {
			ns := gwv1.Namespace(p.Namespace)
			ref.Namespace = &ns
		}
		if p.Section != "" {
			s := gwv1.SectionName(p.Section)
			ref.SectionName = &s
		}
		if p.Port != 0 {
			port := p.Port
			ref.Port = &port
		}
		if p.Kind != "" {
			k := gwv1.Kind(p.Kind)
			ref.Kind = &k
		}
		if !p.StatusOnly {
			refs = append(refs, ref)
		}
		if p.Accepted == "" {
			continue
		}
		reason := "Accepted"
		if p.Accepted != metav1.ConditionTrue {
			reason = "NotAllowedByListeners"
		}
		st.Parents = append(st.Parents, gwv1.RouteParentStatus{
			ParentRef:      ref,
			ControllerName: ControllerName,
			Conditions: []metav1.Condition{{
				Type: "Accepted", Status: p.Accepted, Reason: reason, Message: "set by the test",
				LastTransitionTime: metav1.Now(),
			}},
		})
	}
	return refs, st
}

func (c Clients) createRoute(ctx context.Context, r Route) error {
	meta := metav1.ObjectMeta{Namespace: r.Namespace, Name: r.Name, Labels: r.Labels, Annotations: r.Annotations}
	refs, st := refsAndStatus(r)
	var hosts []gwv1.Hostname
	for _, h := range r.Hostnames {
		hosts = append(hosts, gwv1.Hostname(h))
	}
	common := gwv1.CommonRouteSpec{ParentRefs: refs}
	v1c, v1a2 := c.Gateway.GatewayV1(), c.Gateway.GatewayV1alpha2()
	// TLS, TCP and UDP routes need one rule with a backend.
	port := gwv1.PortNumber(443)
	backends := []gwv1.BackendRef{{BackendObjectReference: gwv1.BackendObjectReference{Name: "backend", Port: &port}}}
	switch r.Kind {
	case "HTTPRoute":
		return createWithStatus(ctx, v1c.HTTPRoutes(r.Namespace), &gwv1.HTTPRoute{ObjectMeta: meta, Spec: gwv1.HTTPRouteSpec{CommonRouteSpec: common, Hostnames: hosts}},
			func(o *gwv1.HTTPRoute) { o.Status.RouteStatus = st }, len(st.Parents) > 0)
	case "GRPCRoute":
		return createWithStatus(ctx, v1c.GRPCRoutes(r.Namespace), &gwv1.GRPCRoute{ObjectMeta: meta, Spec: gwv1.GRPCRouteSpec{CommonRouteSpec: common, Hostnames: hosts}},
			func(o *gwv1.GRPCRoute) { o.Status.RouteStatus = st }, len(st.Parents) > 0)
	case "TLSRoute":
		return createWithStatus(ctx, v1a2.TLSRoutes(r.Namespace), &v1alpha2.TLSRoute{ObjectMeta: meta, Spec: v1alpha2.TLSRouteSpec{CommonRouteSpec: common, Hostnames: hosts, Rules: []v1alpha2.TLSRouteRule{{BackendRefs: backends}}}},
			func(o *v1alpha2.TLSRoute) { o.Status.RouteStatus = st }, len(st.Parents) > 0)
	case "TCPRoute":
		return createWithStatus(ctx, v1a2.TCPRoutes(r.Namespace), &v1alpha2.TCPRoute{ObjectMeta: meta, Spec: v1alpha2.TCPRouteSpec{CommonRouteSpec: common, Rules: []v1alpha2.TCPRouteRule{{BackendRefs: backends}}}},
			func(o *v1alpha2.TCPRoute) { o.Status.RouteStatus = st }, len(st.Parents) > 0)
	case "UDPRoute":
		return createWithStatus(ctx, v1a2.UDPRoutes(r.Namespace), &v1alpha2.UDPRoute{ObjectMeta: meta, Spec: v1alpha2.UDPRouteSpec{CommonRouteSpec: common, Rules: []v1alpha2.UDPRouteRule{{BackendRefs: backends}}}},
			func(o *v1alpha2.UDPRoute) { o.Status.RouteStatus = st }, len(st.Parents) > 0)
	}
	return fmt.Errorf("unknown route kind %q", r.Kind)
}

// typedClient is the part of a typed route client createWithStatus uses.
type typedClient[P any] interface {
	Create(context.Context, P, metav1.CreateOptions) (P, error)
	UpdateStatus(context.Context, P, metav1.UpdateOptions) (P, error)
}

// createWithStatus creates obj and, when withStatus, writes the status setStatus gives it.
func createWithStatus[P any](ctx context.Context, c typedClient[P], obj P, setStatus func(P), withStatus bool) error {
	created, err := c.Create(ctx, obj, metav1.CreateOptions{})
	if err != nil || !withStatus {
		return err
	}
	setStatus(created)
	_, err = c.UpdateStatus(ctx, created, metav1.UpdateOptions{})
	return err
}
