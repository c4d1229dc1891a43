package gateway

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// ListenerSets (gateway.networking.k8s.io/v1, Gateway API v1.5) add listeners to a Gateway from other
// namespaces; routes attach to them as to a Gateway (--gateway-listener-sets). The typed module this
// package builds on predates the v1 kind, so they are read through the dynamic client into the small
// view below.

const listenerSetKind = "ListenerSet"

var listenerSetResource = schema.GroupVersionResource{Group: group, Version: "v1", Resource: "listenersets"}

// listenerSetView is what is read of a ListenerSet; its listeners have the fields of a Gateway's.
type listenerSetView struct {
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		ParentRef struct {
			Group     *string `json:"group,omitempty"`
			Kind      *string `json:"kind,omitempty"`
			Name      string  `json:"name"`
			Namespace *string `json:"namespace,omitempty"`
		} `json:"parentRef"`
		Listeners []gwv1.Listener `json:"listeners"`
	} `json:"spec"`
	Status struct {
		Conditions []metav1.Condition `json:"conditions,omitempty"`
		Listeners  []struct {
			Name       gwv1.SectionName   `json:"name"`
			Conditions []metav1.Condition `json:"conditions,omitempty"`
		} `json:"listeners,omitempty"`
	} `json:"status,omitempty"`
}

// listenerSet returns the ListenerSet namespace/name as a parent, with the listeners its status
// accepted, when its Gateway is selected, lets it attach (spec.allowedListeners) and it is Accepted;
// nil otherwise (or when ListenerSets are not read).
func (r *resolver) listenerSet(namespace, name string) *parent {
	if r.s.listenerSets == nil {
		return nil
	}
	key := listenerSetKind + "/" + namespace + "/" + name
	if p, done := r.parents[key]; done {
		return p
	}
	r.parents[key] = nil
	obj, ok, err := r.s.listenerSets.GetByKey(namespace + "/" + name)
	if err != nil || !ok {
		return nil
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil
	}
	var ls listenerSetView
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &ls); err != nil {
		r.s.k.Object(endpoint.ObjectRef{Kind: listenerSetKind, Namespace: namespace, Name: name}, nil, r.problems).
			Problem("spec", "", fmt.Sprintf("not a ListenerSet zonekeeper can read: %v", err))
		return nil
	}
	gwNS := str(ls.Spec.ParentRef.Namespace, ls.Namespace)
	gwp := r.gateway(gwNS, ls.Spec.ParentRef.Name)
	if gwp == nil || !r.allowsListenerSet(gwp.gw, ls.Namespace) || !accepted(ls.Status.Conditions) {
		return nil
	}
	p := &parent{gw: gwp.gw, owner: ls.Namespace, byName: map[gwv1.SectionName][]*gwv1.Listener{}}
	for i := range ls.Spec.Listeners {
		l := &ls.Spec.Listeners[i]
		for _, st := range ls.Status.Listeners {
			if st.Name == l.Name && accepted(st.Conditions) {
				p.byName[l.Name] = []*gwv1.Listener{l}
				p.byName[""] = append(p.byName[""], l)
			}
		}
	}
	o := r.s.k.Object(endpoint.ObjectRef{Kind: listenerSetKind, Namespace: ls.Namespace, Name: ls.Name}, ls.Annotations, r.problems)
	if t, present := o.TargetAnnotation(); present {
		p.targets = t
	} else {
		p.targets = gwp.targets // the Gateway's target annotation, or its addresses
	}
	r.parents[key] = p
	return p
}

// allowsListenerSet applies the Gateway's spec.allowedListeners (default: none) to a ListenerSet in
// namespace ns.
func (r *resolver) allowsListenerSet(gw *gwv1.Gateway, ns string) bool {
	al := gw.Spec.AllowedListeners
	if al == nil || al.Namespaces == nil || al.Namespaces.From == nil {
		return false
	}
	return r.namespaceAdmits(*al.Namespaces.From, al.Namespaces.Selector, gw.Namespace, ns)
}
