package kube_test

import (
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/zonekeeper/zonekeeper/internal/kube"
)

// A factory of one namespace (a source run with --namespace) still lists Nodes and Namespaces at the
// cluster scope: listed in the namespace, the API server answered 404 and the service source of a
// namespace shard never synced its Node informer (e2e TestShardsByNamespaceShareOneZone).
func TestNamespacedFactoryListsClusterScopedResources(t *testing.T) {
	c, ctx := startClient(t)
	f := kube.NewFactory(c, "default", nil)
	nodes, namespaces, services := f.Nodes(), f.Namespaces(), f.Services()
	f.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), nodes.HasSynced, namespaces.HasSynced, services.HasSynced) {
		t.Fatal("the informers of a namespaced factory did not sync")
	}
	found := false
	for _, o := range namespaces.GetStore().List() {
		found = found || o.(interface{ GetName() string }).GetName() == "kube-system"
	}
	if !found {
		t.Fatalf("namespaces listed %d objects, want every namespace including kube-system", len(namespaces.GetStore().List()))
	}
}
