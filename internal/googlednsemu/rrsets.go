package googlednsemu

import (
	"net/http"
	"regexp"
	"strings"
)

// JSON shape of the discovery schema ResourceRecordSet.
type rrsetJSON struct {
	Kind    string   `json:"kind"`
	Name    string   `json:"name"`
	Type    string   `json:"type"`
	TTL     int64    `json:"ttl"`
	Rrdatas []string `json:"rrdatas"`
}

type rrsetsListJSON struct {
	Kind          string      `json:"kind"`
	Rrsets        []rrsetJSON `json:"rrsets"`
	NextPageToken string      `json:"nextPageToken,omitempty"`
}

func renderRRSet(r *rrset) rrsetJSON {
	return rrsetJSON{Kind: "dns#resourceRecordSet", Name: r.name, Type: r.typ, TTL: r.ttl, Rrdatas: append([]string{}, r.rrdatas...)}
}

// rrFilter is what a resourceRecordSets.list selects: an exact name or a
// name suffix, and a type.
type rrFilter struct {
	name, suffix, typ string
}

func (f rrFilter) String() string { return "rrsets|" + f.name + "|" + f.suffix + "|" + f.typ }

func (f rrFilter) match(r *rrset) bool {
	return (f.name == "" || r.name == f.name) && (f.suffix == "" || inZone(r.name, f.suffix)) && (f.typ == "" || r.typ == f.typ)
}

// The AIP-160 filter forms the discovery document gives as examples:
// name="x." or name=has_suffix("x."), optionally AND type="A".
var filterRE = regexp.MustCompile(`^\s*name\s*=\s*(?:"([^"]*)"|has_suffix\(\s*"([^"]*)"\s*\))\s*(?:AND\s+type\s*=\s*"([A-Za-z0-9]+)"\s*)?$`)

func parseRRFilter(rq *request) (rrFilter, *apiError) {
	var f rrFilter
	q := rq.query
	bad := func(param, v, why string) *apiError {
		return newErr(http.StatusBadRequest, "invalid", "Invalid value for 'parameters."+param+"': '"+v+"'"+why)
	}
	if expr := q.Get("filter"); expr != "" {
		if q.Get("name") != "" || q.Get("type") != "" {
			return f, newErr(http.StatusBadRequest, "invalid", "The name and type parameters must be omitted when filter is used.")
		}
		m := filterRE.FindStringSubmatch(expr)
		if m == nil {
			return f, bad("filter", expr, ` (the emulator takes name="x." or name=has_suffix("x."), optionally AND type="T")`)
		}
		raw := m[1] + m[2]
		n, ok := canonicalName(raw)
		if !ok {
			return f, bad("filter", expr, " (not a DNS name: "+raw+")")
		}
		if m[2] != "" {
			f.suffix = n
		} else {
			f.name = n
		}
		f.typ = strings.ToUpper(m[3])
		return f, nil
	}
	if v := q.Get("name"); v != "" {
		n, ok := canonicalName(v)
		if !ok {
			return f, bad("name", v, "")
		}
		f.name = n
	}
	if v := q.Get("type"); v != "" {
		if f.name == "" {
			return f, newErr(http.StatusBadRequest, "invalid", "The type parameter requires the name parameter.")
		}
		if !supportedTypes[strings.ToUpper(v)] {
			return f, bad("type", v, "")
		}
		f.typ = strings.ToUpper(v)
	}
	return f, nil
}

// listRRSets is resourceRecordSets.list: record sets by name and type,
// filtered, paged.
func (s *Server) listRRSets(rq *request) (any, *apiError) {
	z, e := zoneParam(rq)
	if e != nil {
		return nil, e
	}
	f, e := parseRRFilter(rq)
	if e != nil {
		return nil, e
	}
	size, e := s.pageSize(rq)
	if e != nil {
		return nil, e
	}
	after, e := readPageToken(rq, f.String())
	if e != nil {
		return nil, e
	}
	out := rrsetsListJSON{Kind: "dns#resourceRecordSetsListResponse", Rrsets: []rrsetJSON{}}
	var last *rrset
	for _, r := range z.rrsetsSorted() {
		if !f.match(r) || (after != "" && r.name+"\x00"+r.typ <= after) {
			continue
		}
		if len(out.Rrsets) == size {
			out.NextPageToken = makePageToken(f.String(), last.name+"\x00"+last.typ)
			break
		}
		out.Rrsets = append(out.Rrsets, renderRRSet(r))
		last = r
	}
	return out, nil
}
