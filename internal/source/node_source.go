package source

import (
	"context"
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

// NodeKind is --source=node.
func NodeKind() Kind {
	return Kind{
		Name: "node", Cluster: true,
		Reads: func(Config) []Resource {
			return []Resource{nodesResource}
		},
		New: func(ctx context.Context, env Env) (Source, error) { return NewNode(ctx, env.Kube, env.Config) },
	}
}

// nodesResource is the Node resource: cluster-scoped, so it needs a ClusterRole in every install.
var nodesResource = Resource{Version: "v1", Resource: "nodes", ClusterScoped: true}

// NodeSource publishes a record per Node, as external-dns v0.21.0's node source: named after the node
// (and/or --fqdn-template), pointing at its addresses or its target annotation.
type NodeSource struct {
	c        *compiled
	nodes    corelisters.NodeLister
	handlers eventHandlers
	// merged lets a node's events make the endpoints of that node (ObjectEndpoints).
	merged mergedObjects
}

var _ ObjectSource = (*NodeSource)(nil)

// nodeResourceKind is the resource-label kind of a Node's endpoints.
const nodeResourceKind = "node"

// NewNode returns the node source, backed by a Node informer. Nodes are cluster-scoped: --namespace
// does not apply to them (as in external-dns).
func NewNode(ctx context.Context, client *kube.Client, cfg Config) (*NodeSource, error) {
	cfg.Namespace = ""
	c, err := compile(cfg)
	if err != nil {
		return nil, err
	}
	f := nodePodInformerFactory(client, "")
	s := &NodeSource{c: c, nodes: f.NodeLister()}
	s.handlers.nameObjects("nodes", nodeResourceKind)
	if err := startAndSync(ctx, f, map[string]cache.SharedIndexInformer{"nodes": f.Nodes()}, &s.handlers); err != nil {
		return nil, err
	}
	return s, nil
}

// nodePodInformerFactory is newInformerFactory with nodes cut down to what the node and pod sources
// read (metadata, spec.unschedulable, status.addresses): conditions, images and node info are the
// bulk of a Node.
func nodePodInformerFactory(client *kube.Client, namespace string) *kube.Factory {
	return kube.NewFactory(client, namespace, nodePodTransform())
}

// nodePodTransform is informerTransform with nodes cut down first (slimNode).
func nodePodTransform() cache.TransformFunc {
	t := newStringTable()
	return func(obj any) (any, error) { return t.transform(slimNode(obj)) }
}

// slimNode keeps what the node and pod sources read of a node; other objects pass unchanged.
func slimNode(obj any) any {
	if n, ok := obj.(*corev1.Node); ok {
		return &corev1.Node{
			TypeMeta:   n.TypeMeta,
			ObjectMeta: n.ObjectMeta,
			Spec:       corev1.NodeSpec{Unschedulable: n.Spec.Unschedulable},
			Status:     corev1.NodeStatus{Addresses: n.Status.Addresses},
		}
	}
	return obj
}

// Endpoints returns the endpoints of every admitted node, in name order; records of several nodes
// sharing a name (a template naming them all alike) are merged, the first node naming the record.
func (s *NodeSource) Endpoints(ctx context.Context) (Result, error) {
	nodes, err := s.nodes.List(labels.Everything())
	if err != nil {
		return Result{}, err
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Name < nodes[j].Name })
	var problems problemList
	var eps []*endpoint.Endpoint
	for _, n := range nodes {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		eps = append(eps, s.c.nodeEndpoints(n, &problems)...)
	}
	s.merged.remember(eps)
	return Result{Endpoints: mergeEndpoints(eps), Problems: problems.items}, nil
}

// ObjectKinds implements ObjectSource: a node's endpoints depend on it and on the nodes they are
// merged with (a template naming several alike; ObjectEndpoints makes those too).
func (s *NodeSource) ObjectKinds() []string { return []string{nodeResourceKind} }

// AddObjectHandler implements ObjectSource.
func (s *NodeSource) AddObjectHandler(fn func(resource string)) { s.handlers.addObject(fn) }

// ObjectEndpoints implements ObjectSource: the named nodes and every node sharing a name with them,
// made and merged as Endpoints makes and merges them.
func (s *NodeSource) ObjectEndpoints(ctx context.Context, resources []string) (Result, error) {
	return s.merged.endpointsOf(ctx, resources, func(resource string, problems *Problems) ([]*endpoint.Endpoint, bool, error) {
		n, found, err := cachedByLabel(resource, nodeResourceKind, func(_, name string) (*corev1.Node, error) {
			return s.nodes.Get(name)
		})
		if err != nil || !found {
			return nil, false, err
		}
		return s.c.nodeEndpoints(n, &problems.list), true, nil
	}, compareNamespacedResources)
}

// AddEventHandler registers fn to be called on every change of a node.
func (s *NodeSource) AddEventHandler(fn func()) { s.handlers.add(fn) }

// LookupObject implements ObjectLookup for Nodes (namespace is empty).
func (s *NodeSource) LookupObject(kind, _, name string) (runtime.Object, bool) {
	if !strings.EqualFold(kind, "node") {
		return nil, false
	}
	n, err := s.nodes.Get(name)
	if err != nil {
		return nil, false
	}
	return n, true
}

// nodeUnread are the annotations external-dns's node source does not read: set on a Node they are
// reported, never silently ignored.
var nodeUnread = []string{keyHostname, keyInternalHostname, keySetIdentifier, keyAlias, keyAccess, keyEndpointsType, keyRecordType,
	keyIngressHostnameSource, keyGatewayHostnameSource, "ingress"}

// nodeEndpoints turns one Node into endpoints. It is pure, like serviceEndpoints. The names are the
// node's name unless --fqdn-template or --fqdn-target-template is set (both with
// --combine-fqdn-annotation); the targets are the target annotation, else the node's addresses
// (nodeSourceTargets), and those of the --fqdn-target-template pairs.
func (c *compiled) nodeEndpoints(n *corev1.Node, problems *problemList) []*endpoint.Endpoint {
	o := &objectInput{
		ref:         endpoint.ObjectRef{Kind: "Node", Name: n.Name},
		annotations: n.Annotations,
		reader:      c.annotations,
		problems:    problems,
	}
	if !c.admitsObject(o, n.Labels) || (n.Spec.Unschedulable && c.ExcludeUnschedulable) {
		return nil
	}
	o.reportUnread("Node", nodeUnread)
	o.reportUnknown()
	// external-dns v0.23's order: the node's name (unless a name template is set, or when combining),
	// then the --fqdn-target-template pairs, then the --fqdn-template names, each template pass only
	// while the node has no record yet or when combining (template_targets.go).
	meta := recordMeta{resource: "node/" + n.Name, ttl: o.ttl()}
	var nodeTargets *targets
	targetsOf := func() targets {
		if nodeTargets == nil {
			t, overridden := o.annotationTargets()
			if !overridden {
				t = readNodeAddresses(problems, n).nodeSourceTargets(c.ExposeInternalIPv6)
			}
			nodeTargets = &t
		}
		return *nodeTargets
	}
	var eps []*endpoint.Endpoint
	if !c.nameTemplate() || c.CombineFQDNAndAnnotation {
		if h, err := endpoint.NormalizeDNSName(n.Name); err == nil {
			eps = append(eps, meta.endpointsFor(h, targetsOf())...)
		} else {
			o.problem("metadata.name", n.Name, err.Error())
		}
	}
	typed := *n // a shallow copy with its kind set, for templates reading .Kind
	typed.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}
	if c.templatePassRuns(len(eps)) {
		eps = append(eps, c.templatePairs(o, meta, &typed)...)
	}
	if c.fqdnTemplate != nil && c.templatePassRuns(len(eps)) {
		for _, h := range c.templateHostnames(o, &typed) {
			eps = append(eps, meta.endpointsFor(h, targetsOf())...)
		}
	}
	return mergeEndpoints(eps)
}

// reportUnread reports every annotation in keys, and every provider-specific one (aws-, coredns-, ...),
// that the object carries although its kind does not read it.
func (o *objectInput) reportUnread(kind string, keys []string) {
	o.reportUnreadKeys(kind, keys)
	keys = keys[:0:0]
	for k := range o.annotations {
		keys = append(keys, k)
	}
	sort.Strings(keys) // problems in a stable order
	for _, k := range keys {
		v := o.annotations[k]
		suffix, ok := o.reader.splitKey(o.annotations, k)
		if !ok {
			continue
		}
		for _, p := range providerSpecificPrefixes {
			if strings.HasPrefix(suffix, p.annotation) {
				o.problem(annotationField(k), v, "provider-specific annotations are not read on a "+kind+" (nor by external-dns)")
				break
			}
		}
	}
}
