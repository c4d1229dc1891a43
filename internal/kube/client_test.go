package kube_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/kube"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// Discovery, a typed read and the Event sink against a real API server.
func TestClientAgainstAPIServer(t *testing.T) {
	c, ctx := startClient(t)

	for gv, resource := range map[string]string{"v1": "services", "networking.k8s.io/v1": "ingresses",
		"discovery.k8s.io/v1": "endpointslices", "coordination.k8s.io/v1": "leases"} {
		list, err := c.ServerResourcesForGroupVersion(ctx, gv)
		if err != nil {
			t.Fatalf("%s: %v", gv, err)
		}
		found := false
		for _, r := range list.APIResources {
			found = found || r.Name == resource
		}
		if list.GroupVersion != gv || !found {
			t.Errorf("%s: group version %q, %s served: %v", gv, list.GroupVersion, resource, found)
		}
	}
	if _, err := c.ServerResourcesForGroupVersion(ctx, "example.io/v1"); !apierrors.IsNotFound(err) {
		t.Errorf("a group version not served: %v, want NotFound", err)
	}

	ns := &corev1.Namespace{}
	if err := c.Core.Get().Resource("namespaces").Name("default").Do(ctx).Into(ns); err != nil || ns.Name != "default" {
		t.Fatalf("get namespace: %v %q", err, ns.Name)
	}

	sink := kube.EventSink{Client: c}
	created, err := sink.Create(&corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Namespace: "default", Name: "web.1"},
		InvolvedObject: corev1.ObjectReference{Kind: "Service", Namespace: "default", Name: "web"},
		Reason:         "Published", Message: "one", Count: 1, Type: corev1.EventTypeNormal,
	})
	if err != nil || created.UID == "" {
		t.Fatalf("create: %v", err)
	}
	created.Count = 2
	updated, err := sink.Update(created)
	if err != nil || updated.Count != 2 {
		t.Fatalf("update: %v %d", err, updated.Count)
	}
	patched, err := sink.Patch(updated, []byte(`{"count":3,"message":"three"}`))
	if err != nil || patched.Count != 3 || patched.Message != "three" {
		t.Fatalf("patch: %v %+v", err, patched)
	}
}

// startClient starts kube-apiserver (skipped with -short) and returns a client of it and a context
// that ends with the test, a minute at most.
func startClient(t *testing.T) (*kube.Client, context.Context) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts kube-apiserver")
	}
	api := testbed.StartKubeAPIServer(t)
	c, err := kube.NewForConfig(api.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c, ctx
}
