package crd

import (
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// Resource is where DNSRecords are served: external-dns's group and version.
var Resource = schema.GroupVersionResource{Group: "externaldns.k8s.io", Version: "v1alpha1", Resource: "dnsrecords"}

const (
	apiVersion = "externaldns.k8s.io/v1alpha1"
	kind       = "DNSRecord"

	// OwnerLabel is the object label naming the owner id, which external-dns selects its records by.
	OwnerLabel = "externaldns.k8s.io/owner"

	// ReadyCondition and its reasons, as external-dns v0.23 writes them.
	ReadyCondition   = "Ready"
	AcceptedReason   = "Accepted"
	ProgrammedReason = "Programmed"
	FailedReason     = "Failed"
)

// dnsRecord is the DNSRecord object: spec.endpoint is an endpoint in the DNSEndpoint JSON form.
type dnsRecord struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Endpoint endpoint.Endpoint `json:"endpoint"`
	} `json:"spec"`
	Status struct {
		Conditions []metav1.Condition `json:"conditions,omitempty"`
	} `json:"status,omitempty"`
}

// newDNSRecord is the object that records ep as owned by owner.
func newDNSRecord(namespace, owner string, ep *endpoint.Endpoint) *dnsRecord {
	r := &dnsRecord{}
	r.APIVersion, r.Kind = apiVersion, kind
	r.Name, r.Namespace = objectName(ep.Key()), namespace
	r.Labels = map[string]string{OwnerLabel: owner}
	r.Spec.Endpoint = *ep
	return r
}

// ref names the object in messages: "DNSRecord ns/name".
func (r *dnsRecord) ref() string { return fmt.Sprintf("DNSRecord %s/%s", r.Namespace, r.Name) }

// owner is the owner id the object's label names ("" without one).
func (r *dnsRecord) owner() string { return r.Labels[OwnerLabel] }

// decode reads a listed object. The apiserver has checked the CRD's schema already; what is left is
// what the schema cannot say: that the object holds a record and is named after it.
func decode(u *unstructured.Unstructured) (*dnsRecord, error) {
	r, err := fromUnstructured(u)
	if err != nil {
		return nil, err
	}
	ref := r.ref()
	ep := &r.Spec.Endpoint
	switch {
	case ep.DNSName == "":
		return nil, fmt.Errorf("%s: spec.endpoint.dnsName is empty", ref)
	case ep.RecordType == "":
		return nil, fmt.Errorf("%s: spec.endpoint.recordType is empty", ref)
	}
	if want := objectName(ep.Key()); want != r.Name {
		return nil, fmt.Errorf("%s: spec.endpoint is %s %s (set identifier %q), whose DNSRecord is named %s: the object was not written by a registry",
			ref, ep.DNSName, ep.RecordType, ep.SetIdentifier, want)
	}
	return r, nil
}

// fromUnstructured converts without checking the content.
func fromUnstructured(u *unstructured.Unstructured) (*dnsRecord, error) {
	ref := fmt.Sprintf("DNSRecord %s/%s", u.GetNamespace(), u.GetName())
	raw, err := u.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	var r dnsRecord
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	return &r, nil
}

// encode is the object as the dynamic client sends it.
func (r *dnsRecord) encode() (*unstructured.Unstructured, error) {
	raw, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.ref(), err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(raw); err != nil {
		return nil, fmt.Errorf("%s: %w", r.ref(), err)
	}
	return u, nil
}
