package deploy

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"

	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// cluster is a real kube-apiserver with the clients the tests apply objects with.
type cluster struct {
	kube    *testbed.KubeAPIServer
	dynamic dynamic.Interface
	mapper  *restmapper.DeferredDiscoveryRESTMapper
}

func startCluster(t testing.TB) *cluster {
	t.Helper()
	kube := testbed.StartKubeAPIServer(t)
	dyn, err := dynamic.NewForConfig(kube.Config)
	if err != nil {
		t.Fatal(err)
	}
	disc, err := discovery.NewDiscoveryClientForConfig(kube.Config)
	if err != nil {
		t.Fatal(err)
	}
	return &cluster{kube: kube, dynamic: dyn, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc))}
}

// ensureNamespace creates a namespace unless it exists.
func (c *cluster) ensureNamespace(t testing.TB, name string) {
	t.Helper()
	_, err := c.kube.Client(t).CoreV1().Namespaces().Create(context.Background(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("namespace %s: %v", name, err)
	}
}

// apply server-side-applies every object, namespaces first, with strict field validation: a misspelt or
// misplaced field in a template is an error here, not silently dropped as kubectl apply would.
func (c *cluster) apply(t testing.TB, objs []*unstructured.Unstructured) {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() == "Namespace" {
			c.applyOne(t, o)
		} else if ns := o.GetNamespace(); ns != "" {
			c.ensureNamespace(t, ns)
		}
	}
	for _, o := range objs {
		if o.GetKind() != "Namespace" {
			c.applyOne(t, o)
		}
	}
}

func (c *cluster) applyOne(t testing.TB, o *unstructured.Unstructured) {
	t.Helper()
	gvk := o.GroupVersionKind()
	m, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		c.mapper.Reset() // a CRD applied a moment ago
		m, err = c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	if err != nil {
		t.Fatalf("%s %s: %v", gvk, o.GetName(), err)
	}
	var ri dynamic.ResourceInterface = c.dynamic.Resource(m.Resource)
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		if o.GetNamespace() == "" {
			t.Fatalf("%s %s: namespaced object rendered without a namespace", gvk.Kind, o.GetName())
		}
		ri = c.dynamic.Resource(m.Resource).Namespace(o.GetNamespace())
	}
	body, err := json.Marshal(o.Object)
	if err != nil {
		t.Fatal(err)
	}
	force := true
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = ri.Patch(ctx, o.GetName(), types.ApplyPatchType, body, metav1.PatchOptions{
		FieldManager: "zonekeeper-deploy-test", Force: &force, FieldValidation: "Strict",
	})
	if err != nil {
		t.Fatalf("apply %s %s/%s: %v", gvk.Kind, o.GetNamespace(), o.GetName(), err)
	}
}

// waitForKind waits until a CRD's kind is served (the CRD is Established).
func (c *cluster) waitForKind(t testing.TB, group, kind string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		c.mapper.Reset()
		if _, err := c.mapper.RESTMapping(schema.GroupKind{Group: group, Kind: kind}); err == nil {
			return
		} else if time.Now().After(deadline) {
			t.Fatalf("%s.%s not served: %v", kind, group, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func readFile(t testing.TB, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(repoPath(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
