// Package endpoint holds the record model shared by every stage of the pipeline. Its JSON shape is
// external-dns's Endpoint, byte for byte, so the webhook protocol and the DNSEndpoint CRD can reuse it.
package endpoint

import (
	"fmt"
	"sort"
	"strings"
)

// Record types zonekeeper knows.
const (
	RecordTypeA     = "A"
	RecordTypeAAAA  = "AAAA"
	RecordTypeCNAME = "CNAME"
	RecordTypeTXT   = "TXT"
	RecordTypeSRV   = "SRV"
	RecordTypeNS    = "NS"
	RecordTypePTR   = "PTR"
	RecordTypeMX    = "MX"
	RecordTypeNAPTR = "NAPTR"
	RecordTypeDNAME = "DNAME"
	// TLSA came with external-dns v0.23, DNAME with v0.22.
	RecordTypeTLSA = "TLSA"
	// CAA is not among external-dns's known types; DNSEndpoints and Route 53 carry it.
	RecordTypeCAA = "CAA"
)

// ProviderSpecificRecordType is the property the record-type annotation sets ("ptr" asks for PTR
// records of an object's A and AAAA records; "" opts out of --create-ptr), as external-dns v0.23 names it.
const ProviderSpecificRecordType = "record-type"

// Label keys, as external-dns names them.
const (
	// OwnerLabelKey holds the owner id of the registry that manages a record.
	OwnerLabelKey = "owner"
	// ResourceLabelKey names the object that asked for a record: "service/ns/name", "ingress/ns/name".
	ResourceLabelKey = "resource"
	// OwnedRecordLabelKey is set on ownership TXT endpoints and names the record they guard.
	OwnedRecordLabelKey = "ownedRecord"
	// TxtEncryptionNonce keeps the AES-GCM nonce of an encrypted ownership value so that re-encrypting
	// gives the same text (no churn).
	TxtEncryptionNonce = "txtEncryptionNonce"
)

// TTL is a record TTL in seconds; 0 means "not configured" and lets the provider's default apply.
type TTL int64

// IsConfigured reports whether a TTL was set.
func (t TTL) IsConfigured() bool { return t > 0 }

// Labels are key/value metadata persisted by the registry.
type Labels map[string]string

// ProviderSpecificProperty is a provider hint, compared during planning and not stored by the registry.
type ProviderSpecificProperty struct {
	Name  string `json:"name,omitempty"`
	Value string `json:"value,omitempty"`
}

// ProviderSpecific is the list of provider hints of an endpoint.
type ProviderSpecific []ProviderSpecificProperty

// Endpoint is one record set: a name, a type, an optional set identifier, and its targets.
type Endpoint struct {
	DNSName          string           `json:"dnsName,omitempty"`
	Targets          Targets          `json:"targets,omitempty"`
	RecordType       string           `json:"recordType,omitempty"`
	SetIdentifier    string           `json:"setIdentifier,omitempty"`
	RecordTTL        TTL              `json:"recordTTL,omitempty"`
	Labels           Labels           `json:"labels,omitempty"`
	ProviderSpecific ProviderSpecific `json:"providerSpecific,omitempty"`
}

// Key identifies a record set: (name, type, set identifier).
type Key struct {
	DNSName       string
	RecordType    string
	SetIdentifier string
}

func (k Key) String() string {
	if k.SetIdentifier == "" {
		return k.DNSName + " " + k.RecordType
	}
	return k.DNSName + " " + k.RecordType + " [" + k.SetIdentifier + "]"
}

// New returns an endpoint with the given name, type and targets and an empty label set. The name is
// trimmed of a trailing dot; it is not validated (see NormalizeDNSName).
func New(dnsName, recordType string, targets ...string) *Endpoint {
	return NewWithTTL(dnsName, recordType, 0, targets...)
}

// NewWithTTL is New with a TTL.
func NewWithTTL(dnsName, recordType string, ttl TTL, targets ...string) *Endpoint {
	cleaned := make(Targets, len(targets))
	for i, t := range targets {
		cleaned[i] = cleanTarget(recordType, t)
	}
	return &Endpoint{
		DNSName:    strings.TrimSuffix(dnsName, "."),
		Targets:    cleaned,
		RecordType: recordType,
		RecordTTL:  ttl,
		Labels:     Labels{},
	}
}

// cleanTarget trims the trailing dot of a hostname target; TXT, SRV and NAPTR data keep theirs.
func cleanTarget(recordType, target string) string {
	switch recordType {
	case RecordTypeTXT, RecordTypeSRV, RecordTypeNAPTR:
		return target
	}
	return strings.TrimSuffix(target, ".")
}

// Key returns the identity of the endpoint.
func (e *Endpoint) Key() Key {
	return Key{DNSName: e.DNSName, RecordType: e.RecordType, SetIdentifier: e.SetIdentifier}
}

// WithSetIdentifier sets the set identifier and returns the endpoint.
func (e *Endpoint) WithSetIdentifier(id string) *Endpoint {
	e.SetIdentifier = id
	return e
}

// WithLabel sets a label and returns the endpoint.
func (e *Endpoint) WithLabel(key, value string) *Endpoint {
	if e.Labels == nil {
		e.Labels = Labels{}
	}
	e.Labels[key] = value
	return e
}

// WithProviderSpecific sets a provider-specific property and returns the endpoint.
func (e *Endpoint) WithProviderSpecific(name, value string) *Endpoint {
	e.SetProviderSpecific(name, value)
	return e
}

// GetProviderSpecific returns the value of a provider-specific property.
func (e *Endpoint) GetProviderSpecific(name string) (string, bool) {
	for _, p := range e.ProviderSpecific {
		if p.Name == name {
			return p.Value, true
		}
	}
	return "", false
}

// SetProviderSpecific sets or replaces a provider-specific property.
func (e *Endpoint) SetProviderSpecific(name, value string) {
	for i := range e.ProviderSpecific {
		if e.ProviderSpecific[i].Name == name {
			e.ProviderSpecific[i].Value = value
			return
		}
	}
	e.ProviderSpecific = append(e.ProviderSpecific, ProviderSpecificProperty{Name: name, Value: value})
}

// DeleteProviderSpecific removes a provider-specific property.
func (e *Endpoint) DeleteProviderSpecific(name string) {
	out := e.ProviderSpecific[:0]
	for _, p := range e.ProviderSpecific {
		if p.Name != name {
			out = append(out, p)
		}
	}
	e.ProviderSpecific = out
}

// Owner returns the owner label.
func (e *Endpoint) Owner() string { return e.Labels[OwnerLabelKey] }

// Resource returns the resource label ("ingress/default/web").
func (e *Endpoint) Resource() string { return e.Labels[ResourceLabelKey] }

// DeepCopy returns an independent copy.
func (e *Endpoint) DeepCopy() *Endpoint {
	if e == nil {
		return nil
	}
	out := *e
	out.Targets = append(Targets(nil), e.Targets...)
	if e.Labels != nil {
		out.Labels = make(Labels, len(e.Labels))
		for k, v := range e.Labels {
			out.Labels[k] = v
		}
	}
	if e.ProviderSpecific != nil {
		out.ProviderSpecific = append(ProviderSpecific(nil), e.ProviderSpecific...)
	}
	return &out
}

func (e *Endpoint) String() string {
	s := fmt.Sprintf("%s %d IN %s %s %s", e.DNSName, e.RecordTTL, e.RecordType, e.SetIdentifier, e.Targets)
	if len(e.ProviderSpecific) > 0 {
		s += fmt.Sprintf(" %v", e.ProviderSpecific)
	}
	return s
}

// SameProviderSpecific reports whether two property lists hold the same name/value pairs in any order.
func SameProviderSpecific(a, b ProviderSpecific) bool {
	if len(a) != len(b) {
		return false
	}
	am := make(map[string]string, len(a))
	for _, p := range a {
		am[p.Name] = p.Value
	}
	for _, p := range b {
		if v, ok := am[p.Name]; !ok || v != p.Value {
			return false
		}
	}
	return true
}

// SortEndpoints orders endpoints by key, for stable output.
func SortEndpoints(eps []*Endpoint) {
	sort.Slice(eps, func(i, j int) bool {
		a, b := eps[i], eps[j]
		if a.DNSName != b.DNSName {
			return a.DNSName < b.DNSName
		}
		if a.RecordType != b.RecordType {
			return a.RecordType < b.RecordType
		}
		return a.SetIdentifier < b.SetIdentifier
	})
}
