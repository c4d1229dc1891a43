// Package kube is the Kubernetes API as zonekeeper uses it: one scheme of the few groups it reads and
// writes, a REST client per group version, the verbs it calls, discovery of one group version, and
// informers with a small factory that shares one informer per resource.
//
// It replaces client-go's typed clientset, its shared informer factory, dynamicinformer and discovery:
// those import every built-in API group (k8s.io/client-go/kubernetes/scheme), which made the binary a
// third larger and its resident pages about 13 MB more (docs/benchmarks.md, issue 15).
// TestBinaryLinksNoClientset keeps them out.
package kube
