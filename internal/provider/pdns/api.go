package pdns

// The JSON shapes of the PowerDNS 4.x API that the provider uses. Unknown fields are ignored.

// zoneInfo is one entry of GET /servers/{id}/zones.
type zoneInfo struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Kind string `json:"kind"`
	// Serial is the zone's SOA serial, which the list gives for every zone in one call: the zone probe.
	Serial int64 `json:"serial"`
}

// zoneData is GET /servers/{id}/zones/{zone_id}.
type zoneData struct {
	ID     string  `json:"id"`
	Name   string  `json:"name"`
	RRsets []rrset `json:"rrsets"`
	Serial int64   `json:"serial"`
	// SOAEditAPI is the zone's SOA-EDIT-API setting: empty means API writes leave the serial as it is.
	SOAEditAPI string `json:"soa_edit_api"`
}

// rrset is one record set, as read and as sent in a PATCH. In a PATCH, TTL is always sent (REPLACE
// without it is a 422 in 4.7) and Records is sent for REPLACE only.
type rrset struct {
	Name       string   `json:"name"`
	Type       string   `json:"type"`
	TTL        int64    `json:"ttl,omitempty"`
	ChangeType string   `json:"changetype,omitempty"`
	Records    []record `json:"records,omitempty"`
}

type record struct {
	Content  string `json:"content"`
	Disabled bool   `json:"disabled"`
}

// patchBody is the body of PATCH /servers/{id}/zones/{zone_id}.
type patchBody struct {
	RRsets []rrset `json:"rrsets"`
}

const (
	changeReplace = "REPLACE"
	changeDelete  = "DELETE"
	// typeALIAS is PowerDNS's apex-capable CNAME, which external-dns writes for CNAMEs at the apex
	// and with the alias annotation.
	typeALIAS = "ALIAS"
)
