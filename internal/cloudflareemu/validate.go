package cloudflareemu

import (
	"fmt"
	"net/netip"
	"strings"
	"time"
)

// supportedTypes are the record types the emulator validates and stores.
var supportedTypes = map[string]bool{
	"A": true, "AAAA": true, "CNAME": true, "TXT": true, "MX": true, "NS": true,
	"SRV": true, "CAA": true, "PTR": true, "TLSA": true,
}

// proxiableTypes may have proxied=true.
var proxiableTypes = map[string]bool{"A": true, "AAAA": true, "CNAME": true}

// dataTypes carry their value in the data object.
var dataTypes = map[string]bool{"SRV": true, "CAA": true, "TLSA": true}

// buildRecord applies in to base (nil for a create) and validates the
// result. With patch, fields absent from in keep base's values (PATCH);
// otherwise absent fields take their defaults (POST, PUT).
func buildRecord(z *zone, base *record, in recordInput, patch bool, now time.Time) (*record, *apiError) {
	r := &record{ttl: 1}
	if base != nil && patch {
		r = base.clone()
	}
	if base != nil {
		r.id, r.createdOn = base.id, base.createdOn
		r.comment, r.commentModifiedOn = base.comment, base.commentModifiedOn
		r.tags, r.tagsModifiedOn = base.tags, base.tagsModifiedOn
	}
	if !patch {
		// PUT replaces everything: an omitted comment or tag list is cleared.
		if !in.Comment.set {
			in.Comment = optString{set: true, null: true}
		}
		if !in.Tags.set {
			in.Tags = optStrings{set: true, null: true}
		}
	}

	if in.Type.set {
		if in.Type.null {
			return nil, newErr(400, CodeInvalidType, "DNS record type is required")
		}
		r.typ = strings.ToUpper(in.Type.v)
	}
	if r.typ == "" {
		return nil, newErr(400, CodeInvalidType, "DNS record type is required")
	}
	if !supportedTypes[r.typ] {
		return nil, newErr(400, CodeInvalidType, fmt.Sprintf("DNS record type %q is invalid or not emulated (emulated: A, AAAA, CNAME, TXT, MX, NS, SRV, CAA, PTR, TLSA)", in.Type.v))
	}
	if in.Name.set {
		if in.Name.null {
			return nil, newErr(400, CodeInvalidName, "DNS record name is required")
		}
		name, err := recordName(in.Name.v, z.name)
		if err != "" {
			return nil, newErr(400, CodeInvalidName, err)
		}
		r.name = name
	}
	if r.name == "" {
		return nil, newErr(400, CodeInvalidName, "DNS record name is required")
	}
	if in.TTL.set && !in.TTL.null {
		ttl, ok := wholeNumber(in.TTL.v)
		minTTL := 60
		if z.plan == "enterprise" {
			minTTL = 30
		}
		if !ok || (ttl != 1 && (ttl < minTTL || ttl > 86400)) {
			return nil, newErr(400, CodeInvalidTTL, msgInvalidTTL)
		}
		r.ttl = ttl
	} else if !patch {
		r.ttl = 1
	}
	if in.Proxied.set {
		r.proxied = in.Proxied.v && !in.Proxied.null
	} else if !patch {
		r.proxied = false
	}
	if r.proxied && !proxiableTypes[r.typ] {
		return nil, newErr(400, CodeProxyNotAllowed, "This kind of record cannot be proxied")
	}
	if r.proxied {
		// Cloudflare answers for proxied names itself; their TTL is always automatic.
		r.ttl = 1
	}
	if in.PrivateRouting.set {
		r.privateRouting = in.PrivateRouting.v && !in.PrivateRouting.null
	} else if !patch {
		r.privateRouting = false
	}
	if r.privateRouting && r.typ != "A" && r.typ != "AAAA" {
		return nil, newErr(400, CodeInvalidSettings, "private_routing is only valid for A and AAAA records")
	}
	if e := applyValue(r, in, patch); e != nil {
		return nil, e
	}
	if e := applySettings(r, in); e != nil {
		return nil, e
	}
	if e := applyCommentAndTags(z, r, in, now); e != nil {
		return nil, e
	}
	if base == nil {
		r.id, r.createdOn = newID(), now
	}
	r.modifiedOn = now
	return r, nil
}

// recordName lowercases name, strips a trailing dot, expands "@" to the apex
// and appends the zone to names outside it, as Cloudflare does.
func recordName(name, zoneName string) (string, string) {
	n := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(name)), ".")
	switch {
	case n == "":
		return "", "DNS record name is required"
	case n == "@":
		n = zoneName
	case n != zoneName && !strings.HasSuffix(n, "."+zoneName):
		n = n + "." + zoneName
	}
	if len(n) > 253 {
		return "", fmt.Sprintf("DNS record name %q is longer than 253 characters", name)
	}
	for i, label := range strings.Split(n, ".") {
		if label == "*" && i == 0 {
			continue
		}
		if !validLabel(label, true) {
			return "", fmt.Sprintf("DNS record name %q is invalid: label %q", name, label)
		}
	}
	return n, ""
}

// validLabel accepts letters, digits, hyphens and (for record names)
// underscores, 1–63 characters, no leading or trailing hyphen.
func validLabel(label string, underscore bool) bool {
	if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
		return false
	}
	for _, c := range label {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-':
		case c == '_' && underscore:
		default:
			return false
		}
	}
	return true
}

// validHostname checks a target host name (CNAME, NS, MX, PTR, SRV).
func validHostname(h string) bool {
	h = strings.TrimSuffix(h, ".")
	if h == "" || len(h) > 253 {
		return false
	}
	for _, l := range strings.Split(h, ".") {
		if !validLabel(l, true) {
			return false
		}
	}
	return true
}

// applyValue sets content, priority and data according to the type.
func applyValue(r *record, in recordInput, patch bool) *apiError {
	if in.Priority.set && !in.Priority.null && (r.typ == "MX") {
		p, ok := wholeNumber(in.Priority.v)
		if !ok || p < 0 || p > 65535 {
			return newErr(400, CodeInvalidPriority, fmt.Sprintf("Priority %v of MX record %s must be an integer between 0 and 65535", in.Priority.v, r.name))
		}
		r.priority = &p
	}
	if r.typ != "MX" {
		// Cloudflare ignores priority for types that do not use it.
		r.priority = nil
	}
	if dataTypes[r.typ] {
		return applyData(r, in, patch)
	}
	r.data = nil
	if in.Data.set && !in.Data.null {
		return newErr(400, CodeInvalidData, fmt.Sprintf("Field data is not used by %s records; send content", r.typ))
	}
	content := r.content
	if in.Content.set {
		content = in.Content.v
		if in.Content.null {
			content = ""
		}
	} else if !patch {
		content = ""
	}
	if content == "" {
		return newErr(400, CodeInvalidContent, fmt.Sprintf("Content for %s record %s is required", r.typ, r.name))
	}
	switch r.typ {
	case "A":
		a, err := netip.ParseAddr(content)
		if err != nil || !a.Is4() {
			return newErr(400, CodeInvalidContentA, "Content for A record must be a valid IPv4 address.")
		}
		content = a.String()
	case "AAAA":
		a, err := netip.ParseAddr(content)
		if err != nil || !a.Is6() || a.Is4In6() || a.Zone() != "" {
			return newErr(400, CodeInvalidContentAAAA, "Content for AAAA record must be a valid IPv6 address.")
		}
		content = a.String()
	case "CNAME", "NS", "PTR":
		if !validHostname(content) {
			return newErr(400, CodeInvalidContent, fmt.Sprintf("Content for %s record is invalid. Must be a host name (got %q)", r.typ, content))
		}
		content = strings.ToLower(strings.TrimSuffix(content, "."))
		if r.typ == "CNAME" && content == r.name {
			return newErr(400, CodeInvalidContent, fmt.Sprintf("CNAME record %s cannot point to itself", r.name))
		}
	case "MX":
		if content != "." && !validHostname(content) {
			return newErr(400, CodeInvalidContent, fmt.Sprintf("Content for MX record is invalid. Must be a host name (got %q)", content))
		}
		if content != "." {
			content = strings.ToLower(strings.TrimSuffix(content, "."))
		}
		if r.priority == nil {
			return newErr(400, CodeInvalidPriority, fmt.Sprintf("MX record %s needs a priority between 0 and 65535", r.name))
		}
	case "TXT":
		if len(content) > 4096 {
			return newErr(400, CodeInvalidContent, fmt.Sprintf("Content for TXT record %s is longer than 4096 characters", r.name))
		}
	}
	r.content = content
	return nil
}

// applySettings validates the settings object: ipv4_only and ipv6_only for
// every type, flatten_cname for CNAME.
func applySettings(r *record, in recordInput) *apiError {
	if !in.Settings.set {
		return nil
	}
	if in.Settings.null {
		r.settings = nil
		return nil
	}
	out := map[string]bool{}
	for k, v := range in.Settings.v {
		switch {
		case k == "ipv4_only" || k == "ipv6_only":
		case k == "flatten_cname" && r.typ == "CNAME":
		default:
			return newErr(400, CodeInvalidSettings, fmt.Sprintf("Setting %q is not valid for %s records", k, r.typ))
		}
		out[k] = v
	}
	if out["ipv4_only"] && out["ipv6_only"] {
		return newErr(400, CodeInvalidSettings, "Settings ipv4_only and ipv6_only cannot both be true")
	}
	r.settings = out
	return nil
}

// applyCommentAndTags enforces the plan's comment length (100 characters on
// Free, 500 on paid plans) and the "name:value" tag form.
func applyCommentAndTags(z *zone, r *record, in recordInput, now time.Time) *apiError {
	if in.Comment.set {
		c := in.Comment.v
		if in.Comment.null {
			c = ""
		}
		limit := 500
		if z.plan == "free" {
			limit = 100
		}
		if len([]rune(c)) > limit {
			return newErr(400, CodeInvalidComment, fmt.Sprintf("Comment of record %s is %d characters long; the %s plan allows %d", r.name, len([]rune(c)), z.plan, limit))
		}
		if c != r.comment {
			r.comment = c
			r.commentModifiedOn = now
		}
		if c == "" {
			r.commentModifiedOn = time.Time{}
		}
	}
	if in.Tags.set {
		var tags []string
		if !in.Tags.null {
			tags = in.Tags.v
		}
		for _, t := range tags {
			name, value, ok := strings.Cut(t, ":")
			if !ok || name == "" || strings.TrimSpace(name) != name {
				return newErr(400, CodeInvalidTags, fmt.Sprintf("Tag %q of record %s must have the form name:value", t, r.name))
			}
			_ = value
		}
		if !equalStrings(tags, r.tags) {
			r.tags = append([]string(nil), tags...)
			r.tagsModifiedOn = now
		}
		if len(r.tags) == 0 {
			r.tags, r.tagsModifiedOn = nil, time.Time{}
		}
	}
	return nil
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
