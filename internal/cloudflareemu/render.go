package cloudflareemu

import "time"

// timeFormat is how Cloudflare writes timestamps (RFC 3339, UTC, fractions).
const timeFormat = "2006-01-02T15:04:05.000000Z"

// recordJSON is a DNS record as the API returns it. Fields are exactly those
// the SDK's per-type record structs know (cloudflare-go v7 RecordResponseA
// etc.), so its decoder reports no extra fields; priority appears only for
// MX, data only for SRV/CAA/TLSA, private_routing only when set.
type recordJSON struct {
	ID                string          `json:"id"`
	Name              string          `json:"name"`
	Type              string          `json:"type"`
	Content           string          `json:"content"`
	Priority          *int            `json:"priority,omitempty"`
	Data              map[string]any  `json:"data,omitempty"`
	Proxiable         bool            `json:"proxiable"`
	Proxied           bool            `json:"proxied"`
	TTL               int             `json:"ttl"`
	Settings          map[string]bool `json:"settings"`
	Meta              map[string]any  `json:"meta"`
	Comment           *string         `json:"comment"`
	Tags              []string        `json:"tags"`
	PrivateRouting    *bool           `json:"private_routing,omitempty"`
	CreatedOn         string          `json:"created_on"`
	ModifiedOn        string          `json:"modified_on"`
	CommentModifiedOn string          `json:"comment_modified_on,omitempty"`
	TagsModifiedOn    string          `json:"tags_modified_on,omitempty"`
}

func renderRecord(r *record) recordJSON {
	out := recordJSON{
		ID: r.id, Name: r.name, Type: r.typ, Content: r.content, Priority: r.priority,
		Proxiable: proxiableTypes[r.typ], Proxied: r.proxied, TTL: r.ttl,
		Settings: map[string]bool{}, Meta: map[string]any{}, Tags: []string{},
		CreatedOn: fmtTime(r.createdOn), ModifiedOn: fmtTime(r.modifiedOn),
	}
	if r.data != nil {
		out.Data = r.data.render(r.typ)
	}
	for k, v := range r.settings {
		out.Settings[k] = v
	}
	if r.comment != "" {
		c := r.comment
		out.Comment = &c
		out.CommentModifiedOn = fmtTime(r.commentModifiedOn)
	}
	if len(r.tags) > 0 {
		out.Tags = append(out.Tags, r.tags...)
		out.TagsModifiedOn = fmtTime(r.tagsModifiedOn)
	}
	if r.privateRouting {
		t := true
		out.PrivateRouting = &t
	}
	return out
}

func fmtTime(t time.Time) string { return t.UTC().Format(timeFormat) }

// zoneJSON is a zone as GET /zones returns it, with the fields of the SDK's
// zones.Zone type.
type zoneJSON struct {
	ID                  string         `json:"id"`
	Name                string         `json:"name"`
	Status              string         `json:"status"`
	Paused              bool           `json:"paused"`
	Type                string         `json:"type"`
	DevelopmentMode     int            `json:"development_mode"`
	NameServers         []string       `json:"name_servers"`
	OriginalNameServers []string       `json:"original_name_servers"`
	OriginalRegistrar   *string        `json:"original_registrar"`
	OriginalDnshost     *string        `json:"original_dnshost"`
	ModifiedOn          string         `json:"modified_on"`
	CreatedOn           string         `json:"created_on"`
	ActivatedOn         string         `json:"activated_on"`
	Meta                zoneMetaJSON   `json:"meta"`
	Owner               zoneOwnerJSON  `json:"owner"`
	Account             zoneAcctJSON   `json:"account"`
	Tenant              zoneTenantJSON `json:"tenant"`
	TenantUnit          zoneUnitJSON   `json:"tenant_unit"`
	Permissions         []string       `json:"permissions"`
	Plan                zonePlanJSON   `json:"plan"`
}

type zoneMetaJSON struct {
	Step                   int  `json:"step"`
	CustomCertificateQuota int  `json:"custom_certificate_quota"`
	PageRuleQuota          int  `json:"page_rule_quota"`
	PhishingDetected       bool `json:"phishing_detected"`
	CDNOnly                bool `json:"cdn_only"`
	DNSOnly                bool `json:"dns_only"`
	FoundationDNS          bool `json:"foundation_dns"`
}

type zoneOwnerJSON struct {
	ID   *string `json:"id"`
	Name string  `json:"name"`
	Type string  `json:"type"`
}

type zoneAcctJSON struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type zoneTenantJSON struct {
	ID   *string `json:"id"`
	Name *string `json:"name"`
}

type zoneUnitJSON struct {
	ID *string `json:"id"`
}

type zonePlanJSON struct {
	ID                string  `json:"id"`
	Name              string  `json:"name"`
	Price             float64 `json:"price"`
	Currency          string  `json:"currency"`
	Frequency         string  `json:"frequency"`
	IsSubscribed      bool    `json:"is_subscribed"`
	CanSubscribe      bool    `json:"can_subscribe"`
	LegacyID          string  `json:"legacy_id"`
	LegacyDiscount    bool    `json:"legacy_discount"`
	ExternallyManaged bool    `json:"externally_managed"`
}

// plans are the plan blocks per plan name; is_subscribed is what
// external-dns reads to allow 500-character comments.
var plans = map[string]zonePlanJSON{
	"free":       {ID: "0feeeeeeeeeeeeeeeeeeeeeeeeeeeeee", Name: "Free Website", Currency: "USD", LegacyID: "free", CanSubscribe: false},
	"pro":        {ID: "94f3b7b768b0458b56d2cac4fe5ec0f9", Name: "Pro Website", Price: 20, Currency: "USD", Frequency: "monthly", LegacyID: "pro", IsSubscribed: true, CanSubscribe: true},
	"business":   {ID: "6d8e9e6b4a1c4d7e8f9a0b1c2d3e4f5a", Name: "Business Website", Price: 200, Currency: "USD", Frequency: "monthly", LegacyID: "business", IsSubscribed: true, CanSubscribe: true},
	"enterprise": {ID: "1ac039f6c29b691475c3d74fe588d1ae", Name: "Enterprise Website", Currency: "USD", Frequency: "annual", LegacyID: "enterprise", IsSubscribed: true, CanSubscribe: true},
}

func renderZone(z *zone) zoneJSON {
	created := fmtTime(z.createdOn)
	return zoneJSON{
		ID: z.id, Name: z.name, Status: z.status, Paused: z.paused, Type: "full",
		NameServers:         []string{"ada.ns.cloudflare.com", "bob.ns.cloudflare.com"},
		OriginalNameServers: nil,
		ModifiedOn:          created, CreatedOn: created, ActivatedOn: created,
		Meta:        zoneMetaJSON{Step: 2, CustomCertificateQuota: 0, PageRuleQuota: 3},
		Owner:       zoneOwnerJSON{Type: "user"},
		Account:     zoneAcctJSON{ID: z.accountID, Name: z.accountName},
		Permissions: []string{"#dns_records:edit", "#dns_records:read", "#zone:read"},
		Plan:        plans[z.plan],
	}
}
