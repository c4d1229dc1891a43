package crd

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// ApplyChanges implements registry.Registry, in external-dns v0.23's order: the DNSRecords of creates
// and updates are written and marked Accepted, the provider applies the changes, then each DNSRecord is
// marked Programmed, or Failed when the provider refused its change; the DNSRecords of applied deletes
// are removed last. Updates and deletes of records this owner does not hold are dropped. A change
// whose DNSRecord cannot be written (another owner's object, the API refusing) is not sent to the
// provider; it comes back in a *provider.ApplyError with the provider's own refusals, and the rest
// applies.
func (r *Registry) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	r.opMu.Lock()
	defer r.opMu.Unlock()
	var refused []provider.RejectedChange
	send := &plan.Changes{}
	written := map[*endpoint.Endpoint]*unstructured.Unstructured{}

	for _, ep := range changes.Create {
		ep.WithLabel(endpoint.OwnerLabelKey, r.ownerID)
		obj, err := r.write(ctx, ep)
		if err != nil {
			refused = append(refused, provider.RejectedChange{Action: provider.ActionCreate, Endpoint: ep, Err: err})
			continue
		}
		written[ep] = obj
		send.Create = append(send.Create, ep)
	}
	for i, ep := range changes.UpdateNew {
		old := changes.UpdateOld[i]
		if old.Owner() != r.ownerID {
			continue
		}
		ep.WithLabel(endpoint.OwnerLabelKey, r.ownerID)
		obj, err := r.write(ctx, ep)
		if err != nil {
			refused = append(refused, provider.RejectedChange{Action: provider.ActionUpdate, Endpoint: ep, Err: err})
			continue
		}
		written[ep] = obj
		send.UpdateOld = append(send.UpdateOld, old)
		send.UpdateNew = append(send.UpdateNew, ep)
	}
	for _, ep := range changes.Delete {
		if ep.Owner() == r.ownerID {
			send.Delete = append(send.Delete, ep)
		}
	}

	for ep, obj := range written {
		written[ep] = r.setReady(ctx, obj, AcceptedReason, "accepted by zonekeeper; not yet applied to the DNS provider")
	}
	perr := r.provider.ApplyChanges(ctx, send)
	failed, other := providerRefusals(send, perr)
	for ep, obj := range written {
		if err, bad := failed[ep]; bad {
			r.setReady(ctx, obj, FailedReason, "the DNS provider refused the change: "+err.Error())
			continue
		}
		r.setReady(ctx, obj, ProgrammedReason, "applied to the DNS provider")
	}
	for _, ep := range send.Delete {
		if _, bad := failed[ep]; bad {
			continue
		}
		name := objectName(ep.Key())
		if err := r.records.Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			refused = append(refused, provider.RejectedChange{Action: provider.ActionDelete, Endpoint: ep,
				Err: fmt.Errorf("the record is deleted but its DNSRecord %s/%s is not: %w", r.namespace, name, err)})
		}
	}

	if other != nil {
		return fmt.Errorf("provider: %w", other)
	}
	if ae, ok := provider.AsApplyError(perr); ok {
		refused = append(refused, ae.Rejected...)
	}
	if len(refused) > 0 {
		return &provider.ApplyError{Rejected: refused}
	}
	return nil
}

// providerRefusals maps the changes the provider refused to its reasons. An error that is not an
// *provider.ApplyError leaves nobody knowing what applied: every change counts as refused, and the
// error is returned as other.
func providerRefusals(sent *plan.Changes, err error) (failed map[*endpoint.Endpoint]error, other error) {
	failed = map[*endpoint.Endpoint]error{}
	if err == nil {
		return failed, nil
	}
	all := append(append(append([]*endpoint.Endpoint{}, sent.Create...), sent.UpdateNew...), sent.Delete...)
	ae, ok := provider.AsApplyError(err)
	if !ok {
		for _, ep := range all {
			failed[ep] = err
		}
		return failed, err
	}
	for _, rc := range ae.Rejected {
		reason := rc.Err
		if reason == nil {
			reason = errors.New("rejected")
		}
		for i, ep := range all {
			// By pointer, as the contract intends; else by record (a provider that decoded the changes
			// from the wire, like the webhook client). An update is refused by its old or its new half.
			same := ep == rc.Endpoint || ep.Key() == rc.Endpoint.Key()
			if i >= len(sent.Create) && i < len(sent.Create)+len(sent.UpdateNew) && sent.UpdateOld[i-len(sent.Create)] == rc.Endpoint {
				same = true
			}
			if same {
				failed[ep] = reason
			}
		}
	}
	return failed, nil
}

// write creates the DNSRecord of ep, or brings an existing one of ours up to date with it. Another
// owner's object (or one without an owner label, which external-dns never lists) is left alone and
// the change refused.
func (r *Registry) write(ctx context.Context, ep *endpoint.Endpoint) (*unstructured.Unstructured, error) {
	want := newDNSRecord(r.namespace, r.ownerID, ep)
	u, err := want.encode()
	if err != nil {
		return nil, err
	}
	created, err := r.records.Create(ctx, u, metav1.CreateOptions{})
	if err == nil {
		return created, nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("create %s: %w", want.ref(), err)
	}
	cur, err := r.records.Get(ctx, want.Name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", want.ref(), err)
	}
	existing, err := fromUnstructured(cur)
	if err != nil {
		return nil, err
	}
	if owner := existing.owner(); owner != r.ownerID {
		return nil, fmt.Errorf("%s belongs to owner %q (label %s), not %q", want.ref(), owner, OwnerLabel, r.ownerID)
	}
	existing.Spec.Endpoint = *ep
	u, err = existing.encode()
	if err != nil {
		return nil, err
	}
	updated, err := r.records.Update(ctx, u, metav1.UpdateOptions{})
	if err != nil {
		return nil, fmt.Errorf("update %s: %w", want.ref(), err)
	}
	return updated, nil
}

// setReady sets the Ready condition (True only for Programmed) on the status subresource and returns
// the object as stored. Status is for people: a failed write is logged and never fails the apply (the
// record's ownership is in the object's labels and spec, already written).
func (r *Registry) setReady(ctx context.Context, u *unstructured.Unstructured, reason, message string) *unstructured.Unstructured {
	obj, err := fromUnstructured(u)
	if err != nil {
		r.log.Warn("DNSRecord status not written", "error", err.Error())
		return u
	}
	status := metav1.ConditionFalse
	if reason == ProgrammedReason {
		status = metav1.ConditionTrue
	}
	meta.SetStatusCondition(&obj.Status.Conditions, metav1.Condition{Type: ReadyCondition, Status: status, Reason: reason, Message: message})
	enc, err := obj.encode()
	if err != nil {
		r.log.Warn("DNSRecord status not written", "error", err.Error())
		return u
	}
	stored, err := r.records.UpdateStatus(ctx, enc, metav1.UpdateOptions{})
	if err != nil {
		r.log.Warn("DNSRecord status not written", "object", obj.ref(), "reason", reason, "error", err.Error())
		return u
	}
	return stored
}
