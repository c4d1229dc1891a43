package app

import (
	"context"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/zonekeeper/zonekeeper/internal/kube"
)

// leaseClient reads and writes the one coordination/v1 Lease of the leader election. Errors keep the
// API server's status: Get answers apierrors.IsNotFound when there is no Lease, and Update answers
// apierrors.IsConflict when the Lease changed since the resourceVersion it carries was read.
type leaseClient interface {
	Get(ctx context.Context) (*coordinationv1.Lease, error)
	Create(ctx context.Context, spec coordinationv1.LeaseSpec) (*coordinationv1.Lease, error)
	Update(ctx context.Context, lease *coordinationv1.Lease) (*coordinationv1.Lease, error)
}

// restLeases is a leaseClient over the coordination/v1 REST client (internal/kube): the three calls
// a typed Lease client would make, without client-go's clientset (TestBinaryLinksNoClientset).
type restLeases struct {
	client          rest.Interface
	namespace, name string
}

func newRESTLeases(client *kube.Client, namespace, name string) restLeases {
	return restLeases{client: client.Coordination, namespace: namespace, name: name}
}

func (l restLeases) Get(ctx context.Context) (*coordinationv1.Lease, error) {
	out := &coordinationv1.Lease{}
	err := l.client.Get().Namespace(l.namespace).Resource("leases").Name(l.name).Do(ctx).Into(out)
	return out, err
}

func (l restLeases) Create(ctx context.Context, spec coordinationv1.LeaseSpec) (*coordinationv1.Lease, error) {
	out := &coordinationv1.Lease{}
	err := l.client.Post().Namespace(l.namespace).Resource("leases").
		Body(&coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: l.namespace, Name: l.name}, Spec: spec}).
		Do(ctx).Into(out)
	return out, err
}

func (l restLeases) Update(ctx context.Context, lease *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	out := &coordinationv1.Lease{}
	err := l.client.Put().Namespace(l.namespace).Resource("leases").Name(l.name).Body(lease).Do(ctx).Into(out)
	return out, err
}
