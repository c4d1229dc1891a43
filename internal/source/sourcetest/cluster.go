package sourcetest

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// StartCluster starts a kube-apiserver, has install put a source's CRDs into it (testbed.InstallIstio
// and the like), creates objs there (Create) and returns the clients a source.Env is made of.
func StartCluster(t testing.TB, install func(testing.TB, *testbed.KubeAPIServer) []string, objs ...*unstructured.Unstructured) (kubernetes.Interface, dynamic.Interface) {
	t.Helper()
	_, kube, dyn := StartClusterServer(t, install, objs...)
	return kube, dyn
}

// StartClusterServer is StartCluster, also returning the API server, for a test that needs its
// kubeconfig or rest.Config (a typed client, a peer process pointed at it).
func StartClusterServer(t testing.TB, install func(testing.TB, *testbed.KubeAPIServer) []string, objs ...*unstructured.Unstructured) (*testbed.KubeAPIServer, kubernetes.Interface, dynamic.Interface) {
	t.Helper()
	api := testbed.StartKubeAPIServer(t)
	install(t, api)
	dyn, err := dynamic.NewForConfig(api.Config)
	if err != nil {
		t.Fatal(err)
	}
	kube := api.Client(t)
	Create(t, kube, dyn, objs...)
	return api, kube, dyn
}
