package source

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/tools/cache"

	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// TestInformerCacheBytesPerObject measures what one object costs in an informer's store, as the API
// server sends it (managedFields of two managers, kubectl's last-applied annotation, full spec and
// status), after the cutting down alone (trimObject, and slimNode for nodes), and after the transform the sources' informer factories install
// (trimObject, then the strings objects repeat shared; for Ingresses, then the compact cachedIngress,
// as the Ingress informer keeps them without a template), in a store with the indexes of the source's
// informer. Every object is decoded from its own JSON, as a reflector does, so no string is shared
// between objects but by the transform. The figures are logged (go test -v); the test fails when the
// transform stops saving at least a third of an object of any kind, or sharing strings stops saving
// 15% of a cached Ingress (21% when it came).
func TestInformerCacheBytesPerObject(t *testing.T) {
	if testing.Short() {
		t.Skip("fills caches with thousands of objects")
	}
	const n = 2000
	kinds := []struct {
		kind      string
		build     func(i int) any
		newObj    func() any
		transform func() cache.TransformFunc
		indexers  cache.Indexers
	}{
		{"Service", func(i int) any { return memService(i) }, func() any { return &corev1.Service{} }, nodePodTransform, namespaceIndex()},
		{"Ingress", func(i int) any { return memIngress(i) }, func() any { return &networkingv1.Ingress{} }, func() cache.TransformFunc {
			return defaultIngressTransform(t)
		}, ingressInformer(newInformerFactory(nil, "")).GetIndexer().GetIndexers()},
		{"Pod", func(i int) any { return memPod(i) }, func() any { return &corev1.Pod{} }, nodePodTransform, namespaceIndex()},
		{"Node", func(i int) any { return memNode(i) }, func() any { return &corev1.Node{} }, nodePodTransform, namespaceIndex()},
	}
	t.Logf("%-8s %10s %12s %12s %12s %8s", "kind", "JSON bytes", "raw B/obj", "cut down", "cached B/obj", "saved")
	for _, k := range kinds {
		wire, err := json.Marshal(k.build(0))
		if err != nil {
			t.Fatal(err)
		}
		fill := func(transform func(any) (any, error)) float64 {
			return heapPerObjectIndexed(t, n, k.indexers, func(idx cache.Indexer, i int) {
				raw, err := json.Marshal(k.build(i))
				if err != nil {
					t.Fatal(err)
				}
				obj := k.newObj()
				if err := json.Unmarshal(raw, obj); err != nil {
					t.Fatal(err)
				}
				var o any = obj
				if transform != nil {
					if o, err = transform(o); err != nil {
						t.Fatal(err)
					}
				}
				if err := idx.Add(o); err != nil {
					t.Fatal(err)
				}
			})
		}
		cutDown := func(obj any) (any, error) { return trimObject(slimNode(obj)) }
		raw, trimmedOnly, trimmed := fill(nil), fill(cutDown), fill(k.transform())
		t.Logf("%-8s %10d %12.0f %12.0f %12.0f %7.0f%%", k.kind, len(wire), raw, trimmedOnly, trimmed, 100*(1-trimmed/raw))
		if trimmed > raw*2/3 {
			t.Errorf("%s: %.0f bytes per cached object after the transform, %.0f before: less than a third saved", k.kind, trimmed, raw)
		}
		if k.kind == "Ingress" && trimmed > trimmedOnly*0.85 {
			t.Errorf("Ingress: %.0f bytes per cached object after the transform, %.0f cut down alone: sharing strings saves less than 15%%", trimmed, trimmedOnly)
		}
	}
}

// namespaceIndex is the index informers of a factory have but the Ingress source's.
func namespaceIndex() cache.Indexers {
	return cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}
}

// heapPerObject fills a fresh indexer with n objects and returns the live heap it holds per object.
func heapPerObject(t *testing.T, n int, add func(cache.Indexer, int)) float64 {
	t.Helper()
	return heapPerObjectIndexed(t, n, namespaceIndex(), add)
}

// heapPerObjectIndexed is heapPerObject with the store's indexes.
func heapPerObjectIndexed(t *testing.T, n int, indexers cache.Indexers, add func(cache.Indexer, int)) float64 {
	t.Helper()
	before := testbed.LiveHeap()
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, indexers)
	for i := range n {
		add(idx, i)
	}
	after := testbed.LiveHeap()
	if len(idx.ListKeys()) != n {
		t.Fatalf("%d objects cached, want %d", len(idx.ListKeys()), n)
	}
	runtime.KeepAlive(idx)
	return float64(int64(after)-int64(before)) / float64(n)
}

var memCreated = metav1.NewTime(time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC))

// memManaged is a managedFields entry as the API server keeps it: fieldsV1 names every field the
// manager set.
func memManaged(manager, operation, subresource string, fields ...string) metav1.ManagedFieldsEntry {
	var b strings.Builder
	b.WriteString("{")
	for i, f := range fields {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "%q:{}", f)
	}
	b.WriteString("}")
	return metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationType(operation), APIVersion: "v1",
		Time: &memCreated, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(b.String())}, Subresource: subresource}
}

func memFields(prefix string, names ...string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = prefix + n
	}
	return out
}

// memMeta is the metadata of an applied object of a team's namespace; lastApplied is set by kubectl.
func memMeta(kind string, i int, lastApplied bool, managed ...metav1.ManagedFieldsEntry) metav1.ObjectMeta {
	m := metav1.ObjectMeta{
		Name: fmt.Sprintf("%s-%d", strings.ToLower(kind), i), Namespace: fmt.Sprintf("team-%d", i%40),
		UID: types.UID(fmt.Sprintf("3f2a1c9e-5b7d-4e8f-9a0b-%012d", i)), ResourceVersion: fmt.Sprint(1000000 + i), Generation: 3,
		CreationTimestamp: memCreated,
		Labels: map[string]string{"app.kubernetes.io/name": fmt.Sprintf("app-%d", i), "app.kubernetes.io/part-of": "shop",
			"app.kubernetes.io/managed-by": "Helm", "helm.sh/chart": "shop-1.4.2"},
		Annotations: map[string]string{
			"external-dns.alpha.kubernetes.io/hostname": fmt.Sprintf("app-%d.example.com", i),
			"external-dns.alpha.kubernetes.io/ttl":      "300",
			"meta.helm.sh/release-name":                 "shop", "meta.helm.sh/release-namespace": fmt.Sprintf("team-%d", i%40),
		},
		ManagedFields: managed,
	}
	if lastApplied {
		b, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": kind, "metadata": map[string]any{
			"name": m.Name, "namespace": m.Namespace, "labels": m.Labels, "annotations": map[string]string{
				"external-dns.alpha.kubernetes.io/hostname": m.Annotations["external-dns.alpha.kubernetes.io/hostname"],
				"external-dns.alpha.kubernetes.io/ttl":      "300"}},
			"spec": map[string]any{"note": strings.Repeat("x", 400)}})
		m.Annotations[lastAppliedAnnotation] = string(b)
	}
	return m
}

func memService(i int) *corev1.Service {
	managed := []metav1.ManagedFieldsEntry{
		memManaged("kubectl-client-side-apply", "Update", "", append(memFields("f:metadata.f:", "annotations", "labels", "last-applied-configuration", "hostname", "ttl"),
			memFields("f:spec.f:", "allocateLoadBalancerNodePorts", "externalTrafficPolicy", "internalTrafficPolicy", "ports", "k:{\"port\":80,\"protocol\":\"TCP\"}", "k:{\"port\":443,\"protocol\":\"TCP\"}", "selector", "sessionAffinity", "type")...)...),
		memManaged("kube-controller-manager", "Update", "status", "f:status.f:loadBalancer.f:ingress"),
	}
	ip := fmt.Sprintf("10.96.%d.%d", i>>8&255, i&255)
	return &corev1.Service{
		TypeMeta:   metav1.TypeMeta{Kind: "Service", APIVersion: "v1"},
		ObjectMeta: memMeta("Service", i, true, managed...),
		Spec: corev1.ServiceSpec{
			Type: corev1.ServiceTypeLoadBalancer, ClusterIP: ip, ClusterIPs: []string{ip},
			Ports: []corev1.ServicePort{
				{Name: "http", Protocol: "TCP", Port: 80, TargetPort: intstr.FromInt32(8080), NodePort: int32(30000 + i%2000)},
				{Name: "https", Protocol: "TCP", Port: 443, TargetPort: intstr.FromInt32(8443), NodePort: int32(32000 + i%700)}},
			Selector:        map[string]string{"app.kubernetes.io/name": fmt.Sprintf("app-%d", i)},
			SessionAffinity: "None", ExternalTrafficPolicy: "Cluster", IPFamilies: []corev1.IPFamily{"IPv4"},
		},
		Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{IP: fmt.Sprintf("203.0.%d.%d", i>>8&255, i&255)}}}},
	}
}

func memIngress(i int) *networkingv1.Ingress {
	managed := []metav1.ManagedFieldsEntry{
		memManaged("kubectl-client-side-apply", "Update", "", append(memFields("f:metadata.f:", "annotations", "labels", "last-applied-configuration", "hostname", "ttl", "nginx.ingress.kubernetes.io/proxy-body-size"),
			memFields("f:spec.f:", "ingressClassName", "rules", "tls", "hosts", "secretName", "http", "paths", "backend", "service", "name", "port", "number", "pathType")...)...),
		memManaged("nginx-ingress-controller", "Update", "status", "f:status.f:loadBalancer.f:ingress"),
	}
	meta := memMeta("Ingress", i, true, managed...)
	meta.Annotations["nginx.ingress.kubernetes.io/proxy-body-size"] = "16m"
	class := "nginx"
	prefix := networkingv1.PathTypePrefix
	host := fmt.Sprintf("shop-%d.example.com", i)
	path := func(p, svc string) networkingv1.HTTPIngressPath {
		return networkingv1.HTTPIngressPath{Path: p, PathType: &prefix, Backend: networkingv1.IngressBackend{
			Service: &networkingv1.IngressServiceBackend{Name: svc, Port: networkingv1.ServiceBackendPort{Number: 80}}}}
	}
	return &networkingv1.Ingress{
		TypeMeta:   metav1.TypeMeta{Kind: "Ingress", APIVersion: "networking.k8s.io/v1"},
		ObjectMeta: meta,
		Spec: networkingv1.IngressSpec{
			IngressClassName: &class,
			TLS:              []networkingv1.IngressTLS{{Hosts: []string{host}, SecretName: fmt.Sprintf("shop-%d-tls", i)}},
			Rules: []networkingv1.IngressRule{{Host: host, IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
				Paths: []networkingv1.HTTPIngressPath{path("/", fmt.Sprintf("web-%d", i)), path("/api", fmt.Sprintf("api-%d", i))}}}}},
		},
		Status: networkingv1.IngressStatus{LoadBalancer: networkingv1.IngressLoadBalancerStatus{Ingress: []networkingv1.IngressLoadBalancerIngress{{IP: "203.0.113.10"}}}},
	}
}

func memPod(i int) *corev1.Pod {
	managed := []metav1.ManagedFieldsEntry{
		memManaged("kube-controller-manager", "Update", "", append(memFields("f:metadata.f:", "generateName", "labels", "ownerReferences", "pod-template-hash"),
			memFields("f:spec.f:containers.k:{\"name\":\"app\"}.f:", "env", "image", "imagePullPolicy", "livenessProbe", "name", "ports", "readinessProbe", "resources", "securityContext", "terminationMessagePath", "volumeMounts")...)...),
		memManaged("kubelet", "Update", "status", append(memFields("f:status.f:", "conditions", "containerStatuses", "hostIP", "hostIPs", "phase", "podIP", "podIPs", "startTime"),
			memFields("f:status.f:conditions.k:{\"type\":\"", "ContainersReady\"}", "Initialized\"}", "PodReadyToStartContainers\"}", "Ready\"}", "PodScheduled\"}")...)...),
	}
	meta := memMeta("Pod", i, false, managed...)
	meta.GenerateName = fmt.Sprintf("app-%d-7d9f8b6c5-", i)
	meta.Labels["pod-template-hash"] = "7d9f8b6c5"
	meta.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: fmt.Sprintf("app-%d-7d9f8b6c5", i), UID: "0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0"}}
	probe := &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(8080)}}, PeriodSeconds: 10, TimeoutSeconds: 1, FailureThreshold: 3, SuccessThreshold: 1}
	container := func(name, image string) corev1.Container {
		return corev1.Container{Name: name, Image: image, ImagePullPolicy: "IfNotPresent",
			Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: "TCP"}},
			Env: []corev1.EnvVar{{Name: "LOG_LEVEL", Value: "info"}, {Name: "DB_HOST", Value: "postgres.db.svc.cluster.local"}, {Name: "REGION", Value: "eu-west-1"},
				{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}}},
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
				Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")}},
			VolumeMounts:  []corev1.VolumeMount{{Name: "config", MountPath: "/etc/app"}, {Name: "kube-api-access-x7k2p", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true}},
			LivenessProbe: probe, ReadinessProbe: probe,
			TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: "File"}
	}
	cstatus := func(name, image string) corev1.ContainerStatus {
		return corev1.ContainerStatus{Name: name, Image: image, ImageID: image + "@sha256:" + strings.Repeat("ab", 32), Ready: true,
			ContainerID: "containerd://" + strings.Repeat("cd", 32), State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: memCreated}}}
	}
	podIP := fmt.Sprintf("10.244.%d.%d", i>>8&255, i&255)
	var conds []corev1.PodCondition
	for _, c := range []corev1.PodConditionType{"PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"} {
		conds = append(conds, corev1.PodCondition{Type: c, Status: "True", LastTransitionTime: memCreated})
	}
	return &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		ObjectMeta: meta,
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{container("app", "registry.example.com/shop/app:1.4.2"), container("sidecar", "registry.example.com/mesh/proxy:1.22.0")},
			Volumes:    []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "app-config"}}}}},
			NodeName:   fmt.Sprintf("node-%d", i%100), ServiceAccountName: "default", RestartPolicy: "Always", DNSPolicy: "ClusterFirst", SchedulerName: "default-scheduler",
			Tolerations: []corev1.Toleration{{Key: "node.kubernetes.io/not-ready", Operator: "Exists", Effect: "NoExecute"}, {Key: "node.kubernetes.io/unreachable", Operator: "Exists", Effect: "NoExecute"}},
		},
		Status: corev1.PodStatus{Phase: "Running", Conditions: conds, HostIP: "172.16.0.10", HostIPs: []corev1.HostIP{{IP: "172.16.0.10"}},
			PodIP: podIP, PodIPs: []corev1.PodIP{{IP: podIP}}, StartTime: &memCreated, QOSClass: "Burstable",
			ContainerStatuses: []corev1.ContainerStatus{cstatus("app", "registry.example.com/shop/app:1.4.2"), cstatus("sidecar", "registry.example.com/mesh/proxy:1.22.0")}},
	}
}

func memNode(i int) *corev1.Node {
	managed := []metav1.ManagedFieldsEntry{
		memManaged("kubelet", "Update", "", memFields("f:metadata.f:labels.f:", "beta.kubernetes.io/arch", "beta.kubernetes.io/os", "kubernetes.io/arch", "kubernetes.io/hostname", "kubernetes.io/os", "node.kubernetes.io/instance-type", "topology.kubernetes.io/region", "topology.kubernetes.io/zone")...),
		memManaged("kubelet", "Update", "status", memFields("f:status.f:", "addresses", "allocatable", "capacity", "conditions", "daemonEndpoints", "images", "nodeInfo", "volumesAttached", "volumesInUse")...),
		memManaged("kube-controller-manager", "Update", "", "f:spec.f:podCIDR", "f:spec.f:podCIDRs", "f:metadata.f:annotations.f:node.alpha.kubernetes.io/ttl"),
	}
	meta := memMeta("Node", i, false, managed...)
	meta.Namespace = ""
	for k, v := range map[string]string{"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux", "kubernetes.io/hostname": meta.Name,
		"node.kubernetes.io/instance-type": "m6i.2xlarge", "topology.kubernetes.io/region": "eu-west-1", "topology.kubernetes.io/zone": "eu-west-1a"} {
		meta.Labels[k] = v
	}
	meta.Annotations["node.alpha.kubernetes.io/ttl"] = "0"
	meta.Annotations["volumes.kubernetes.io/controller-managed-attach-detach"] = "true"
	var conds []corev1.NodeCondition
	for _, c := range []string{"MemoryPressure", "DiskPressure", "PIDPressure", "Ready"} {
		conds = append(conds, corev1.NodeCondition{Type: corev1.NodeConditionType(c), Status: "False", LastHeartbeatTime: memCreated, LastTransitionTime: memCreated,
			Reason: "Kubelet" + c, Message: "kubelet has no " + strings.ToLower(c)})
	}
	var images []corev1.ContainerImage
	for j := range 40 {
		images = append(images, corev1.ContainerImage{Names: []string{fmt.Sprintf("registry.example.com/team-%d/image-%d@sha256:%s", j%7, j, strings.Repeat("ef", 32)),
			fmt.Sprintf("registry.example.com/team-%d/image-%d:v1.%d.0", j%7, j, j)}, SizeBytes: int64(50000000 + j*1000)})
	}
	res := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8"), corev1.ResourceMemory: resource.MustParse("32386524Ki"), corev1.ResourcePods: resource.MustParse("110"), "ephemeral-storage": resource.MustParse("104845292Ki")}
	return &corev1.Node{
		TypeMeta:   metav1.TypeMeta{Kind: "Node", APIVersion: "v1"},
		ObjectMeta: meta,
		Spec:       corev1.NodeSpec{PodCIDR: fmt.Sprintf("10.244.%d.0/24", i&255), PodCIDRs: []string{fmt.Sprintf("10.244.%d.0/24", i&255)}, ProviderID: fmt.Sprintf("aws:///eu-west-1a/i-%017d", i)},
		Status: corev1.NodeStatus{Capacity: res, Allocatable: res, Conditions: conds, Images: images,
			Addresses: []corev1.NodeAddress{{Type: "InternalIP", Address: fmt.Sprintf("172.16.%d.%d", i>>8&255, i&255)}, {Type: "ExternalIP", Address: fmt.Sprintf("198.51.%d.%d", i>>8&255, i&255)},
				{Type: "Hostname", Address: meta.Name}, {Type: "InternalDNS", Address: fmt.Sprintf("ip-172-16-%d-%d.eu-west-1.compute.internal", i>>8&255, i&255)}},
			DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}},
			NodeInfo: corev1.NodeSystemInfo{MachineID: strings.Repeat("1", 32), SystemUUID: "ec2" + strings.Repeat("2", 29), BootID: strings.Repeat("3", 36), KernelVersion: "6.1.112-124.190.amzn2023.x86_64",
				OSImage: "Amazon Linux 2023", ContainerRuntimeVersion: "containerd://1.7.22", KubeletVersion: "v1.31.2", KubeProxyVersion: "v1.31.2", OperatingSystem: "linux", Architecture: "amd64"}},
	}
}
