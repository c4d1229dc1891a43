package app

import (
	"context"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
)

// leaseClient reads and writes the one coordination/v1 Lease of the leader election. Errors keep the
// API server's status: Get answers apierrors.IsNotFound when there is no Lease, and Update answers
// apierrors.IsConflict when the Lease changed since the resourceVersion it carries was read.
type leaseClient interface {
	Get(ctx context.Context) (*coordinationv1.Lease, error)
	Create(ctx context.Context, spec coordinationv1.LeaseSpec) (*coordinationv1.Lease, error)
	Update(ctx context.Context, lease *coordinationv1.Lease) (*coordinationv1.Lease, error)
}

// typedLeases is a leaseClient over client-go's typed coordination/v1 client.
type typedLeases struct {
	leases          coordinationv1client.LeaseInterface
	namespace, name string
}

func newTypedLeases(client coordinationv1client.LeasesGetter, namespace, name string) typedLeases {
	return typedLeases{leases: client.Leases(namespace), namespace: namespace, name: name}
}

func (l typedLeases) Get(ctx context.Context) (*coordinationv1.Lease, error) {
	return l.leases.Get(ctx, l.name, metav1.GetOptions{})
}

func (l typedLeases) Create(ctx context.Context, spec coordinationv1.LeaseSpec) (*coordinationv1.Lease, error) {
	return l.leases.Create(ctx, &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: l.namespace, Name: l.name}, Spec: spec}, metav1.CreateOptions{})
}

func (l typedLeases) Update(ctx context.Context, lease *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	return l.leases.Update(ctx, lease, metav1.UpdateOptions{})
}
