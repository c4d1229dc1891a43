// Package crd is the CRD registry (--registry=crd): ownership is kept in external-dns's DNSRecord
// objects (externaldns.k8s.io/v1alpha1, resource dnsrecords) in one namespace instead of TXT records
// beside each DNS record, so zonekeeper and external-dns v0.22+ with --registry=crd can take over each
// other's records.
//
// # What external-dns v0.23.0 does (facts read from its source, module sigs.k8s.io/external-dns@v0.23.0)
//
//   - One DNSRecord per owned record set (apis/v1alpha1/dnsrecord.go:47-107): spec.endpoint is the
//     whole endpoint in the DNSEndpoint JSON form (dnsName, targets, recordType, setIdentifier,
//     recordTTL, labels, providerSpecific); status.conditions holds one condition, type Ready, whose
//     reason is Accepted (written, provider not yet called; False), Programmed (provider applied it;
//     True) or Failed (provider refused the batch; False) (dnsrecord.go:32-45, registry/crd/crd.go:361-381).
//   - The object name is derived from the record identity (registry/crd/crd.go:297-321): the DNS name
//     lower-cased without its final dot, with every run of characters outside [a-z0-9] replaced by
//     "-" and "-" trimmed from both ends (cut to fit 253 characters), then "-" and the first 4 bytes, in
//     hex, of SHA-256 over "<name>/<TYPE>/<set identifier>"; "record" when nothing readable is left.
//     objectName in name.go computes the same names (pinned in name_test.go).
//   - The owner is the object label externaldns.k8s.io/owner (dnsrecord.go:30) and also the endpoint
//     label "owner" in spec.endpoint.labels; the endpoint label "resource" (service/ns/name, ...) is
//     kept in spec.endpoint.labels (crd.go:193-195, 328-337). No annotation is written.
//   - Records() lists the DNSRecords of the namespace that carry its owner label and whose Ready
//     condition is True, and returns their spec.endpoint as the current state; it never reads the DNS
//     provider for ownership (crd.go:145-166). A change made in the provider directly is therefore not
//     seen, and a record in the provider without a DNSRecord is invisible (external-dns creates over it).
//   - ApplyChanges (crd.go:183-268): updates and deletes only of endpoints whose "owner" label is its
//     owner id; the owner label is stamped on creates; the DNSRecords of creates and updates are written
//     first and marked Accepted, then the provider is called, then they are marked Programmed (or Failed
//     on an error, with the provider's error in the message); deletes remove the DNSRecord after the
//     provider; finally labels the provider reports for the applied records are merged into
//     spec.endpoint.labels, owner and resource kept (crd.go:389-429, dnsrecord.go:57-64).
//   - Namespace: --crd-registry-namespace (pkg/apis/externaldns/types.go:673), else the namespace of
//     the kubeconfig context or, in a pod, of the pod (pkg/client/config.go:81-92), else "default"
//     (crd.go:62-81). An empty owner id is an error (crd.go:74-76).
//   - No migration: the CRD registry does not read TXT ownership records, and the TXT registry does not
//     read DNSRecords; switching registries starts with no owned records.
//   - RBAC (charts/external-dns/templates/clusterrole.yaml:66-73): dnsrecords get, watch, list,
//     create, update, delete and dnsrecords/status update.
//   - The CRD is shipped as config/crd/standard/dnsrecords.externaldns.k8s.io.yaml and in the chart's
//     crds/ folder; external-dns fails at start when it is missing (its cache never syncs).
//
// # What zonekeeper does
//
// The same objects, byte for byte in spec and labels: the same names, the same owner label, the same
// spec.endpoint, the same Ready condition reasons. What differs, on purpose (docs/migration.md):
//
//   - Records reads the provider and takes only ownership (the owner label and the resource label)
//     from the DNSRecords, of every owner in the namespace. A record that another owner's DNSRecord
//     claims is that owner's and never touched; a record without a DNSRecord is nobody's and never
//     overwritten (external-dns would create over it); a record that our DNSRecord names but that is
//     gone from the provider is created again (external-dns does not notice). The Ready condition is
//     not consulted: the provider says whether the record exists.
//   - A create whose DNSRecord exists under another owner is refused for that record alone, naming the
//     object and its owner; the other changes apply.
//   - A DNSRecord that cannot be read (its name is not the name of its spec's record, no dnsName or
//     recordType) is reported once by name and otherwise ignored; it never blocks the other records.
//   - Only the changes the provider refused are marked Failed; the rest are Programmed.
package crd
