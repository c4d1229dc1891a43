package source

import (
	"context"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/kube"
)

// PodKind is --source=pod.
func PodKind() Kind {
	return Kind{
		Name: "pod", Cluster: true,
		Reads: func(Config) []Resource {
			return []Resource{{Version: "v1", Resource: "pods"}, nodesResource}
		},
		New: func(ctx context.Context, env Env) (Source, error) { return NewPod(ctx, env.Kube, env.Config) },
	}
}

// PodSource publishes records for Pods, as external-dns v0.21.0's pod source: the internal-hostname
// annotation and --pod-source-domain point at the pod IP, the hostname annotation at the addresses
// of the pod's node, --fqdn-template at every pod IP.
type PodSource struct {
	c     *compiled
	pods  corelisters.PodLister
	nodes corelisters.NodeLister
	// byNode indexes the pods by the node they run on, for a node's events.
	byNode   cache.Indexer
	handlers eventHandlers
	// merged lets a pod's events make the endpoints of that pod (ObjectEndpoints).
	merged mergedObjects
}

var _ ObjectSource = (*PodSource)(nil)

// podResourceKind is the resource-label kind of a Pod's endpoints.
const podResourceKind = "pod"

// podNodeIndex indexes pods by spec.nodeName.
const podNodeIndex = "node"

// NewPod returns the pod source, backed by a Pod informer (scoped to --namespace) and a Node
// informer (cluster-wide: the hostname annotation publishes the node's addresses).
func NewPod(ctx context.Context, client *kube.Client, cfg Config) (*PodSource, error) {
	c, err := compile(cfg)
	if err != nil {
		return nil, err
	}
	if d := strings.TrimSpace(cfg.PodSourceDomain); d != "" {
		if _, err := endpoint.NormalizeDNSName("pod." + d); err != nil {
			return nil, fmt.Errorf("--pod-source-domain %q: %w", cfg.PodSourceDomain, err)
		}
	}
	pf := nodePodInformerFactory(client, cfg.Namespace)
	nf := nodePodInformerFactory(client, "")
	podInf, nodeInf := pf.Pods(), nf.Nodes()
	if err := podInf.AddIndexers(cache.Indexers{podNodeIndex: podNodeName}); err != nil {
		return nil, fmt.Errorf("pod index: %w", err)
	}
	s := &PodSource{c: c, pods: pf.PodLister(), nodes: nf.NodeLister(), byNode: podInf.GetIndexer()}
	watched := map[string]cache.SharedIndexInformer{"pods": podInf, "nodes": nodeInf}
	// A pod's events name it; a node's name the pods on it (the hostname annotation publishes the
	// node's addresses).
	s.handlers.nameObjects("pods", podResourceKind)
	s.handlers.dependentsOf("nodes", s.podsOnNode)
	if err := startAndSyncAll(ctx, watched, &s.handlers, pf.Start, nf.Start); err != nil {
		return nil, err
	}
	return s, nil
}

// Endpoints returns the endpoints of every admitted pod, in namespace/name order; records several pods
// ask for are merged into one, named after the first pod.
func (s *PodSource) Endpoints(ctx context.Context) (Result, error) {
	pods, err := s.pods.List(labels.Everything())
	if err != nil {
		return Result{}, err
	}
	sort.Slice(pods, func(i, j int) bool { return objectLess(pods[i], pods[j]) })
	var problems problemList
	var eps []*endpoint.Endpoint
	for _, p := range pods {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		eps = append(eps, s.c.podEndpoints(p, s.nodes, &problems)...)
	}
	s.merged.remember(eps)
	return Result{Endpoints: mergeEndpoints(eps), Problems: problems.items}, nil
}

// podsOnNode names the pods running on a node.
func (s *PodSource) podsOnNode(obj any) []string {
	n, ok := obj.(*corev1.Node)
	if !ok {
		return []string{""}
	}
	pods, err := s.byNode.ByIndex(podNodeIndex, n.Name)
	if err != nil {
		return []string{""}
	}
	out := make([]string, 0, len(pods))
	for _, o := range pods {
		if p, ok := o.(*corev1.Pod); ok {
			out = append(out, podResourceKind+"/"+p.Namespace+"/"+p.Name)
		}
	}
	return out
}

// ObjectKinds implements ObjectSource: a pod's endpoints depend on it, on its node (whose events name
// the pods on it) and on the pods they are merged with (ObjectEndpoints makes those too).
func (s *PodSource) ObjectKinds() []string { return []string{podResourceKind} }

// AddObjectHandler implements ObjectSource.
func (s *PodSource) AddObjectHandler(fn func(resource string)) { s.handlers.addObject(fn) }

// ObjectEndpoints implements ObjectSource: the named pods and every pod sharing a name with them,
// made and merged as Endpoints makes and merges them.
func (s *PodSource) ObjectEndpoints(ctx context.Context, resources []string) (Result, error) {
	return s.merged.endpointsOf(ctx, resources, func(resource string, problems *Problems) ([]*endpoint.Endpoint, bool, error) {
		p, found, err := cachedByLabel(resource, podResourceKind, func(namespace, name string) (*corev1.Pod, error) {
			return s.pods.Pods(namespace).Get(name)
		})
		if err != nil || !found {
			return nil, false, err
		}
		return s.c.podEndpoints(p, s.nodes, &problems.list), true, nil
	}, compareNamespacedResources)
}

// AddEventHandler registers fn to be called on every change of a pod or a node.
func (s *PodSource) AddEventHandler(fn func()) { s.handlers.add(fn) }

// LookupObject implements ObjectLookup for Pods, and for the Nodes whose bad addresses it reports.
func (s *PodSource) LookupObject(kind, namespace, name string) (runtime.Object, bool) {
	if strings.EqualFold(kind, "node") {
		n, err := s.nodes.Get(name)
		return n, err == nil
	}
	if !strings.EqualFold(kind, "pod") {
		return nil, false
	}
	p, err := s.pods.Pods(namespace).Get(name)
	if err != nil {
		return nil, false
	}
	return p, true
}

// podUnread are the annotations external-dns's pod source does not read.
var podUnread = []string{keySetIdentifier, keyAlias, keyAccess, keyEndpointsType, keyRecordType,
	keyIngressHostnameSource, keyGatewayHostnameSource, "ingress"}

// podEndpoints turns one Pod into endpoints. It is pure, like serviceEndpoints.
//
//   - internal-hostname: the pod IP (status.podIP);
//   - hostname: the ExternalIPs and IPv6 InternalIPs of the pod's node;
//   - --pod-source-domain: <pod name>.<domain> → the pod IP;
//   - the target annotation replaces the targets of all three;
//   - --fqdn-target-template, when the above give no record (or with --combine-fqdn-annotation): its
//     host:target pairs;
//   - --fqdn-template, when the above give no record (or with --combine-fqdn-annotation): every pod
//     IP (status.podIPs), whatever the target annotation says.
//
// --ignore-hostname-annotation drops both hostname annotations; --ignore-non-host-network-pods
// drops pods without spec.hostNetwork altogether; the controller annotation is honoured.
func (c *compiled) podEndpoints(p *corev1.Pod, nodes corelisters.NodeLister, problems *problemList) []*endpoint.Endpoint {
	o := &objectInput{
		ref:         endpoint.ObjectRef{Kind: "Pod", Namespace: p.Namespace, Name: p.Name},
		annotations: p.Annotations,
		reader:      c.annotations,
		problems:    problems,
	}
	if !c.admitsObject(o, p.Labels) || (c.IgnoreNonHostNetworkPods && !p.Spec.HostNetwork) {
		return nil
	}
	o.reportUnread("Pod", podUnread)
	o.reportUnknown()
	meta := recordMeta{resource: podResourceKind + "/" + p.Namespace + "/" + p.Name, ttl: o.ttl()}
	override, overridden := o.annotationTargets()
	podIP := func() targets {
		if overridden {
			return override
		}
		var t targets
		if p.Status.PodIP != "" {
			t.add(o, "status.podIP", p.Status.PodIP)
		}
		return t
	}

	var eps []*endpoint.Endpoint
	if !c.IgnoreHostnameAnnotation {
		for _, h := range o.hostnames(keyInternalHostname) {
			eps = append(eps, meta.endpointsFor(h, podIP())...)
		}
		if hosts := o.hostnames(keyHostname); len(hosts) > 0 {
			t := override
			if !overridden {
				t = podNodeTargets(p, nodes, problems)
			}
			for _, h := range hosts {
				eps = append(eps, meta.endpointsFor(h, t)...)
			}
		}
	}
	if d := strings.TrimSpace(c.PodSourceDomain); d != "" {
		name := p.Name + "." + d
		if h, err := endpoint.NormalizeDNSName(name); err == nil {
			eps = append(eps, meta.endpointsFor(h, podIP())...)
		} else {
			o.problem("metadata.name", p.Name, fmt.Sprintf("%s (with --pod-source-domain)", err))
		}
	}
	typed := *p // a shallow copy with its kind set, for templates reading .Kind
	typed.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
	if c.templatePassRuns(len(eps)) { // external-dns v0.23: the pairs first (template_targets.go)
		eps = append(eps, c.templatePairs(o, meta, &typed)...)
	}
	if c.fqdnTemplate != nil && c.templatePassRuns(len(eps)) {
		var all targets
		for i, ip := range p.Status.PodIPs {
			if ip.IP != "" {
				all.addIndexed(o, "status.podIPs[%d].ip", i, ip.IP)
			}
		}
		for _, h := range c.templateHostnames(o, &typed) {
			eps = append(eps, meta.endpointsFor(h, all)...)
		}
	}
	return mergeEndpoints(eps)
}

// podNodeTargets are the addresses of the pod's node for the hostname annotation; none while the pod
// is not scheduled or its node is unknown.
func podNodeTargets(p *corev1.Pod, nodes corelisters.NodeLister, problems *problemList) targets {
	if p.Spec.NodeName == "" || nodes == nil {
		return targets{}
	}
	n, err := nodes.Get(p.Spec.NodeName)
	if err != nil {
		return targets{}
	}
	return readNodeAddresses(problems, n).podHostnameTargets()
}
