package source

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/rest"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/kube"
)

// run builds in-memory indexers from objs and returns what the service and ingress sources produce,
// through the same listers the manifest source uses.
func run(t *testing.T, cfg Config, objs ...runtime.Object) Result {
	t.Helper()
	c, err := compile(cfg)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	m := newManifestObjects(cfg.Namespace)
	for _, o := range objs {
		m.add(o, nil, "test")
	}
	svc := &ServiceSource{c: c, services: corelisters.NewServiceLister(m.services), state: clusterState{
		nodes: corelisters.NewNodeLister(m.nodes), pods: corelisters.NewPodLister(m.pods), slices: m.slices,
	}}
	ing := &IngressSource{c: c, ingresses: storeIngresses{m.ingresses}}
	a, err := svc.Endpoints(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b, err := ing.Endpoints(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return Result{Endpoints: append(a.Endpoints, b.Endpoints...), Problems: append(m.problems.items, append(a.Problems, b.Problems...)...)}
}

// render prints endpoints one per line, sorted: "name TYPE t1,t2 [ttl=N] [set=X] [ps=k=v;...] res=...".
func render(eps []*endpoint.Endpoint) []string {
	out := make([]string, 0, len(eps))
	for _, e := range eps {
		s := fmt.Sprintf("%s %s %s", e.DNSName, e.RecordType, strings.Join(e.Targets, ","))
		if e.RecordTTL != 0 {
			s += fmt.Sprintf(" ttl=%d", e.RecordTTL)
		}
		if e.SetIdentifier != "" {
			s += " set=" + e.SetIdentifier
		}
		if len(e.ProviderSpecific) > 0 {
			var ps []string
			for _, p := range e.ProviderSpecific {
				ps = append(ps, p.Name+"="+p.Value)
			}
			s += " ps=" + strings.Join(ps, ";")
		}
		s += " res=" + e.Labels[endpoint.ResourceLabelKey]
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

func expectEndpoints(t *testing.T, got []*endpoint.Endpoint, want ...string) {
	t.Helper()
	g := render(got)
	sort.Strings(want)
	if strings.Join(g, "\n") != strings.Join(want, "\n") {
		t.Errorf("endpoints:\n got:\n  %s\n want:\n  %s", strings.Join(g, "\n  "), strings.Join(want, "\n  "))
	}
}

func expectNoProblems(t *testing.T, r Result) {
	t.Helper()
	for _, p := range r.Problems {
		t.Errorf("unexpected problem: %v", p)
	}
}

// findProblem returns the problem on the given object and field, failing the test if there is none.
func findProblem(t *testing.T, r Result, obj endpoint.ObjectRef, field string) endpoint.Problem {
	t.Helper()
	for _, p := range r.Problems {
		if p.Object == obj && p.Field == field {
			return p
		}
	}
	t.Fatalf("no problem on %v field %s; problems: %v", obj, field, r.Problems)
	return endpoint.Problem{}
}

func om(name string, ann map[string]string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: "default", Name: name, Annotations: ann}
}

func lbService(name string, ann map[string]string, ingress ...corev1.LoadBalancerIngress) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: om(name, ann),
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, ClusterIP: "10.0.0.10"},
		Status:     corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: ingress}},
	}
}

func node(name string, unschedulable bool, addrs ...corev1.NodeAddress) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       corev1.NodeSpec{Unschedulable: unschedulable},
		Status:     corev1.NodeStatus{Addresses: addrs},
	}
}

func ext(ip string) corev1.NodeAddress {
	return corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: ip}
}
func internal(ip string) corev1.NodeAddress {
	return corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: ip}
}

func pod(name, nodeName, hostname string, ready bool, lbls map[string]string) *corev1.Pod {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Labels: lbls},
		Spec:       corev1.PodSpec{NodeName: nodeName, Hostname: hostname},
		Status: corev1.PodStatus{
			Phase:      corev1.PodRunning,
			HostIP:     "192.168.0.1",
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: status}},
		},
	}
}

// sliceEndpoint is one EndpointSlice endpoint pointing at a pod.
func sliceEndpoint(podName, addr string, ready bool) discoveryv1.Endpoint {
	return discoveryv1.Endpoint{
		Addresses:  []string{addr},
		Conditions: discoveryv1.EndpointConditions{Ready: &ready},
		TargetRef:  &corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: podName},
	}
}

func endpointSlice(name, service string, eps ...discoveryv1.Endpoint) *discoveryv1.EndpointSlice {
	return &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: "default", Name: name, Labels: map[string]string{discoveryv1.LabelServiceName: service}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   eps,
	}
}

func ingress(name string, ann map[string]string, hosts []string, status ...networkingv1.IngressLoadBalancerIngress) *networkingv1.Ingress {
	ing := &networkingv1.Ingress{ObjectMeta: om(name, ann)}
	for _, h := range hosts {
		ing.Spec.Rules = append(ing.Spec.Rules, networkingv1.IngressRule{Host: h})
	}
	ing.Status.LoadBalancer.Ingress = status
	return ing
}

const (
	alpha = PrefixAlpha
	ga    = PrefixGA
)

func ingLB(ipOrHost string) networkingv1.IngressLoadBalancerIngress {
	return networkingv1.IngressLoadBalancerIngress{IP: ipOrHost}
}

func kubeForConfig(cfg *rest.Config) (*kube.Client, error) {
	return kube.NewForConfig(cfg)
}

// awaitNamed waits up to 30 s for an event naming want, skipping events naming other objects; an
// event naming no object before it fails the test (that event would plan everything), unless want is
// "" itself.
func awaitNamed(t *testing.T, named <-chan string, what, want string) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case got := <-named:
			if got == want {
				return
			}
			if got == "" {
				t.Fatalf("%s: an event names no object; want %q", what, want)
			}
		case <-deadline:
			t.Fatalf("%s: no event naming %q", what, want)
		}
	}
}
