package cloudflareemu

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"
)

// customHostname is a Cloudflare for SaaS custom hostname. The emulator
// keeps what clients set (hostname, custom origin, SSL method and type,
// metadata) and reports the states a fresh hostname has on Cloudflare
// (status pending, SSL pending_validation); validation never completes.
type customHostname struct {
	id           string
	hostname     string
	originServer string
	originSNI    string
	metadata     map[string]string
	ssl          map[string]any
	createdAt    time.Time
}

// regionalHostname is a Data Localization Suite regional hostname.
type regionalHostname struct {
	hostname  string
	regionKey string
	routing   string
	createdOn time.Time
}

// newUUID returns a random UUID v4, the shape of custom hostname ids.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// customHostnameJSON has the fields of the SDK's CustomHostname*Response.
type customHostnameJSON struct {
	ID                        string            `json:"id"`
	Hostname                  string            `json:"hostname"`
	CustomOriginServer        string            `json:"custom_origin_server,omitempty"`
	CustomOriginSNI           string            `json:"custom_origin_sni,omitempty"`
	CustomMetadata            map[string]string `json:"custom_metadata,omitempty"`
	SSL                       map[string]any    `json:"ssl"`
	Status                    string            `json:"status"`
	VerificationErrors        []string          `json:"verification_errors"`
	OwnershipVerification     map[string]string `json:"ownership_verification"`
	OwnershipVerificationHTTP map[string]string `json:"ownership_verification_http"`
	CreatedAt                 string            `json:"created_at"`
}

func renderCustomHostname(c *customHostname) customHostnameJSON {
	return customHostnameJSON{
		ID: c.id, Hostname: c.hostname, CustomOriginServer: c.originServer, CustomOriginSNI: c.originSNI,
		CustomMetadata: c.metadata, SSL: c.ssl, Status: "pending",
		VerificationErrors: []string{"custom hostname does not CNAME to this zone."},
		OwnershipVerification: map[string]string{
			"type": "txt", "name": "_cf-custom-hostname." + c.hostname, "value": c.id,
		},
		OwnershipVerificationHTTP: map[string]string{
			"http_url":  "http://" + c.hostname + "/.well-known/cf-custom-hostname-challenge/" + c.id,
			"http_body": c.id,
		},
		CreatedAt: fmtTime(c.createdAt),
	}
}

// listCustomHostnames implements GET custom_hostnames with the id, hostname
// (exact), hostname.exact, hostname.contain, hostname.startsWith filters,
// order (hostname, ssl, ssl_status) and paging (per_page 5–50, default 20).
func (s *Server) listCustomHostnames(req request) (any, *resultInfo, *apiError) {
	z, e := s.zoneLocked(req)
	if e != nil {
		return nil, nil, e
	}
	q := req.r.URL.Query()
	if e := checkQuery(q, []string{"id", "hostname", "hostname.exact", "hostname.contain", "hostname.startsWith", "order", "direction", "page", "per_page"}); e != nil {
		return nil, nil, e
	}
	page, perPage, e := paging(q, 20, 5, 50)
	if e != nil {
		return nil, nil, e
	}
	var fs []func(*customHostname) bool
	if v, ok := qget(q, "id"); ok {
		fs = append(fs, func(c *customHostname) bool { return c.id == v })
	}
	for _, k := range []string{"hostname", "hostname.exact"} {
		if v, ok := qget(q, k); ok {
			v = strings.ToLower(v)
			fs = append(fs, func(c *customHostname) bool { return c.hostname == v })
		}
	}
	if v, ok := qget(q, "hostname.contain"); ok {
		v = strings.ToLower(v)
		fs = append(fs, func(c *customHostname) bool { return strings.Contains(c.hostname, v) })
	}
	if v, ok := qget(q, "hostname.startsWith"); ok {
		v = strings.ToLower(v)
		fs = append(fs, func(c *customHostname) bool { return strings.HasPrefix(c.hostname, v) })
	}
	if len(fs) > 1 {
		return nil, nil, newErr(400, CodeInvalidQuery, "Only one of id, hostname, hostname.exact, hostname.contain and hostname.startsWith may be used")
	}
	switch o, _ := qget(q, "order"); o {
	case "", "hostname", "ssl", "ssl_status":
	default:
		return nil, nil, newErr(400, CodeInvalidQuery, "Invalid order "+o+"; valid: hostname, ssl, ssl_status")
	}
	desc, e := direction(q)
	if e != nil {
		return nil, nil, e
	}
	var matched []*customHostname
	for _, c := range z.custom {
		if combine(fs, false, c) {
			matched = append(matched, c)
		}
	}
	sort.Slice(matched, func(i, j int) bool {
		if desc {
			return matched[i].hostname > matched[j].hostname
		}
		return matched[i].hostname < matched[j].hostname
	})
	items, info := paginate(len(matched), page, perPage)
	out := make([]customHostnameJSON, 0, len(items))
	for _, i := range items {
		out = append(out, renderCustomHostname(matched[i]))
	}
	return out, info, nil
}

func (s *Server) newCustomHostname(req request) (any, *resultInfo, *apiError) {
	z, e := s.zoneLocked(req)
	if e != nil {
		return nil, nil, e
	}
	var in struct {
		Hostname           string            `json:"hostname"`
		CustomOriginServer string            `json:"custom_origin_server"`
		CustomOriginSNI    string            `json:"custom_origin_sni"`
		CustomMetadata     map[string]string `json:"custom_metadata"`
		SSL                map[string]any    `json:"ssl"`
	}
	dec := json.NewDecoder(strings.NewReader(string(req.body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return nil, nil, newErr(400, CodeInvalidJSON, "Custom hostname body: "+err.Error())
	}
	host := strings.TrimSuffix(strings.ToLower(in.Hostname), ".")
	wild := strings.HasPrefix(host, "*.")
	if !validHostname(strings.TrimPrefix(host, "*.")) || !strings.Contains(host, ".") {
		return nil, nil, newErr(400, CodeHostnameInvalid, fmt.Sprintf("The hostname %q is invalid", in.Hostname))
	}
	if in.CustomOriginServer != "" && !validHostname(in.CustomOriginServer) {
		return nil, nil, newErr(400, CodeHostnameInvalid, fmt.Sprintf("custom_origin_server %q of custom hostname %s is not a host name", in.CustomOriginServer, host))
	}
	for _, c := range z.custom {
		if c.hostname == host {
			return nil, nil, newErr(409, CodeHostnameExists, "Duplicate custom hostname found.")
		}
	}
	ssl, e := customHostnameSSL(in.SSL, wild)
	if e != nil {
		return nil, nil, e
	}
	c := &customHostname{id: newUUID(), hostname: host, originServer: strings.TrimSuffix(strings.ToLower(in.CustomOriginServer), "."),
		originSNI: in.CustomOriginSNI, metadata: in.CustomMetadata, ssl: ssl, createdAt: s.now()}
	z.custom[c.id] = c
	return renderCustomHostname(c), nil, nil
}

// customHostnameSSL validates the ssl object's method, type, bundle_method,
// certificate_authority and settings.min_tls_version, and returns the ssl
// block of a hostname whose certificate awaits validation.
func customHostnameSSL(in map[string]any, wildcard bool) (map[string]any, *apiError) {
	out := map[string]any{
		"id": newUUID(), "type": "dv", "method": "http", "status": "pending_validation",
		"bundle_method": "ubiquitous", "certificate_authority": "google", "wildcard": wildcard,
		"settings": map[string]any{},
	}
	allowed := map[string][]string{
		"method":                {"http", "txt", "email"},
		"type":                  {"dv"},
		"bundle_method":         {"ubiquitous", "optimal", "force"},
		"certificate_authority": {"digicert", "google", "lets_encrypt", "ssl_com"},
	}
	for k, v := range in {
		switch k {
		case "method", "type", "bundle_method", "certificate_authority":
			sv, _ := v.(string)
			ok := false
			for _, a := range allowed[k] {
				ok = ok || a == sv
			}
			if !ok {
				return nil, newErr(400, CodeInvalidJSON, fmt.Sprintf("ssl.%s %v is invalid; valid: %s", k, v, strings.Join(allowed[k], ", ")))
			}
			out[k] = sv
		case "wildcard":
			b, ok := v.(bool)
			if !ok {
				return nil, newErr(400, CodeInvalidJSON, "ssl.wildcard must be a boolean")
			}
			out[k] = b
		case "settings":
			m, ok := v.(map[string]any)
			if !ok {
				return nil, newErr(400, CodeInvalidJSON, "ssl.settings must be an object")
			}
			settings := map[string]any{}
			for sk, sv := range m {
				switch sk {
				case "min_tls_version":
					switch sv {
					case "1.0", "1.1", "1.2", "1.3":
					default:
						return nil, newErr(400, CodeInvalidJSON, fmt.Sprintf("ssl.settings.min_tls_version %v is invalid; valid: 1.0, 1.1, 1.2, 1.3", sv))
					}
				case "http2", "tls_1_3", "early_hints":
					if sv != "on" && sv != "off" {
						return nil, newErr(400, CodeInvalidJSON, fmt.Sprintf("ssl.settings.%s must be on or off", sk))
					}
				case "ciphers":
				default:
					return nil, newErr(400, CodeInvalidJSON, fmt.Sprintf("ssl.settings.%s is not emulated", sk))
				}
				settings[sk] = sv
			}
			out[k] = settings
		default:
			return nil, newErr(400, CodeInvalidJSON, fmt.Sprintf("ssl.%s is not emulated (custom certificates are not)", k))
		}
	}
	return out, nil
}

func (s *Server) customHostnameLocked(req request) (*zone, *customHostname, *apiError) {
	z, e := s.zoneLocked(req)
	if e != nil {
		return nil, nil, e
	}
	c, ok := z.custom[req.params["custom_hostname_id"]]
	if !ok {
		return nil, nil, newErr(http.StatusNotFound, CodeHostnameNotFound, "The custom hostname was not found.")
	}
	return z, c, nil
}

func (s *Server) getCustomHostname(req request) (any, *resultInfo, *apiError) {
	_, c, e := s.customHostnameLocked(req)
	if e != nil {
		return nil, nil, e
	}
	return renderCustomHostname(c), nil, nil
}

func (s *Server) deleteCustomHostname(req request) (any, *resultInfo, *apiError) {
	z, c, e := s.customHostnameLocked(req)
	if e != nil {
		return nil, nil, e
	}
	delete(z.custom, c.id)
	return bareBody{map[string]string{"id": c.id}}, nil, nil
}

// regionalHostnameJSON has the fields of the SDK's RegionalHostname*Response.
type regionalHostnameJSON struct {
	Hostname  string `json:"hostname"`
	RegionKey string `json:"region_key"`
	Routing   string `json:"routing"`
	CreatedOn string `json:"created_on"`
}

func renderRegional(h *regionalHostname) regionalHostnameJSON {
	return regionalHostnameJSON{Hostname: h.hostname, RegionKey: h.regionKey, Routing: h.routing, CreatedOn: fmtTime(h.createdOn)}
}

// listRegionalHostnames is a single page of every regional hostname.
func (s *Server) listRegionalHostnames(req request) (any, *resultInfo, *apiError) {
	z, e := s.zoneLocked(req)
	if e != nil {
		return nil, nil, e
	}
	if e := checkQuery(req.r.URL.Query(), nil); e != nil {
		return nil, nil, e
	}
	out := []regionalHostnameJSON{}
	for _, h := range z.regional {
		out = append(out, renderRegional(h))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Hostname < out[j].Hostname })
	return out, nil, nil
}

type regionalInput struct {
	Hostname  *string `json:"hostname"`
	RegionKey *string `json:"region_key"`
	Routing   *string `json:"routing"`
}

func decodeRegional(body []byte) (regionalInput, *apiError) {
	var in regionalInput
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return in, newErr(400, CodeInvalidJSON, "Regional hostname body: "+err.Error())
	}
	return in, nil
}

// validRegionKey accepts the shape of region keys ("us", "eu", "ca",
// "fedramp_high", …); the list of keys an account may use is not emulated.
func validRegionKey(k string) bool {
	if k == "" || len(k) > 32 {
		return false
	}
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func (s *Server) newRegionalHostname(req request) (any, *resultInfo, *apiError) {
	z, e := s.zoneLocked(req)
	if e != nil {
		return nil, nil, e
	}
	in, e := decodeRegional(req.body)
	if e != nil {
		return nil, nil, e
	}
	if in.Hostname == nil || in.RegionKey == nil {
		return nil, nil, newErr(400, CodeInvalidJSON, "Regional hostname needs hostname and region_key")
	}
	host := strings.TrimSuffix(strings.ToLower(*in.Hostname), ".")
	bare := strings.TrimPrefix(host, "*.")
	if !validHostname(bare) || (bare != z.name && !strings.HasSuffix(bare, "."+z.name)) {
		return nil, nil, newErr(400, CodeHostnameInvalid, fmt.Sprintf("Hostname %q is not a host name in zone %s", *in.Hostname, z.name))
	}
	if !validRegionKey(*in.RegionKey) {
		return nil, nil, newErr(400, CodeHostnameInvalid, fmt.Sprintf("region_key %q of %s is invalid", *in.RegionKey, host))
	}
	if _, dup := z.regional[host]; dup {
		return nil, nil, newErr(409, CodeHostnameExists, "Regional hostname "+host+" already exists")
	}
	routing := "dns"
	if in.Routing != nil {
		routing = *in.Routing
	}
	h := &regionalHostname{hostname: host, regionKey: *in.RegionKey, routing: routing, createdOn: s.now()}
	z.regional[host] = h
	return renderRegional(h), nil, nil
}

func (s *Server) regionalLocked(req request) (*zone, *regionalHostname, *apiError) {
	z, e := s.zoneLocked(req)
	if e != nil {
		return nil, nil, e
	}
	h, ok := z.regional[strings.TrimSuffix(strings.ToLower(req.params["hostname"]), ".")]
	if !ok {
		return nil, nil, newErr(http.StatusNotFound, CodeHostnameNotFound, "Regional hostname "+req.params["hostname"]+" not found")
	}
	return z, h, nil
}

func (s *Server) getRegionalHostname(req request) (any, *resultInfo, *apiError) {
	_, h, e := s.regionalLocked(req)
	if e != nil {
		return nil, nil, e
	}
	return renderRegional(h), nil, nil
}

// editRegionalHostname changes only the region key, as the API allows.
func (s *Server) editRegionalHostname(req request) (any, *resultInfo, *apiError) {
	_, h, e := s.regionalLocked(req)
	if e != nil {
		return nil, nil, e
	}
	in, e := decodeRegional(req.body)
	if e != nil {
		return nil, nil, e
	}
	if in.Hostname != nil || in.Routing != nil {
		return nil, nil, newErr(400, CodeInvalidJSON, "Only region_key can be changed on regional hostname "+h.hostname)
	}
	if in.RegionKey == nil || !validRegionKey(*in.RegionKey) {
		return nil, nil, newErr(400, CodeHostnameInvalid, "region_key is missing or invalid for "+h.hostname)
	}
	h.regionKey = *in.RegionKey
	return renderRegional(h), nil, nil
}

func (s *Server) deleteRegionalHostname(req request) (any, *resultInfo, *apiError) {
	z, h, e := s.regionalLocked(req)
	if e != nil {
		return nil, nil, e
	}
	delete(z.regional, h.hostname)
	return noResult{}, nil, nil
}
