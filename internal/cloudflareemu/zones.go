package cloudflareemu

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// zoneLocked finds the zone of a request; unknown and malformed ids both get
// Cloudflare's routing error, as the real API gives for a zone the token
// cannot see.
func (s *Server) zoneLocked(req request) (*zone, *apiError) {
	id := req.params["zone_id"]
	if z, ok := s.st.zones[id]; ok {
		return z, nil
	}
	return nil, &apiError{status: http.StatusNotFound, errors: []errorDetail{
		{Code: CodeCouldNotRoute, Message: "Could not route to " + req.r.URL.Path + ", perhaps your object identifier is invalid?"},
		{Code: CodeNoRoute, Message: msgNoRoute},
	}}
}

func (s *Server) getZone(req request) (any, *resultInfo, *apiError) {
	if e := checkQuery(req.r.URL.Query(), nil); e != nil {
		return nil, nil, e
	}
	z, e := s.zoneLocked(req)
	if e != nil {
		return nil, nil, e
	}
	return renderZone(z), nil, nil
}

// listZones implements GET /zones with the name, status, type, account.id,
// account.name filters (match=all|any), order/direction and paging (per_page
// 5–50, default 20).
func (s *Server) listZones(req request) (any, *resultInfo, *apiError) {
	q := req.r.URL.Query()
	if e := checkQuery(q, []string{"name", "status", "type", "account.id", "account.name", "match", "order", "direction", "page", "per_page"}); e != nil {
		return nil, nil, e
	}
	page, perPage, e := paging(q, 20, 5, 50)
	if e != nil {
		return nil, nil, e
	}
	anyMatch, e := matchMode(q)
	if e != nil {
		return nil, nil, e
	}
	var filters []func(*zone) bool
	if v, ok := qget(q, "name"); ok {
		f, e := stringFilter("name", strings.ToLower(v))
		if e != nil {
			return nil, nil, e
		}
		filters = append(filters, func(z *zone) bool { return f(z.name) })
	}
	if v, ok := qget(q, "status"); ok {
		filters = append(filters, func(z *zone) bool { return z.status == v })
	}
	if v, ok := qget(q, "type"); ok {
		filters = append(filters, func(*zone) bool { return v == "full" })
	}
	if v, ok := qget(q, "account.id"); ok {
		filters = append(filters, func(z *zone) bool { return z.accountID == v })
	}
	if v, ok := qget(q, "account.name"); ok {
		f, e := stringFilter("account.name", v)
		if e != nil {
			return nil, nil, e
		}
		filters = append(filters, func(z *zone) bool { return f(z.accountName) })
	}
	var matched []*zone
	for _, z := range s.st.zonesSorted() {
		if combine(filters, anyMatch, z) {
			matched = append(matched, z)
		}
	}
	key := func(z *zone) string { return z.name }
	switch order, _ := qget(q, "order"); order {
	case "", "name":
	case "status":
		key = func(z *zone) string { return z.status }
	case "account.id":
		key = func(z *zone) string { return z.accountID }
	case "account.name":
		key = func(z *zone) string { return z.accountName }
	default:
		return nil, nil, newErr(400, CodeInvalidQuery, "Invalid order "+strconv.Quote(order)+"; valid: name, status, account.id, account.name")
	}
	desc, e := direction(q)
	if e != nil {
		return nil, nil, e
	}
	sort.SliceStable(matched, func(i, j int) bool {
		if desc {
			return key(matched[i]) > key(matched[j])
		}
		return key(matched[i]) < key(matched[j])
	})
	items, info := paginate(len(matched), page, perPage)
	out := make([]zoneJSON, 0, len(items))
	for _, i := range items {
		out = append(out, renderZone(matched[i]))
	}
	return out, info, nil
}

// combine applies filters with match=all (every filter) or match=any.
func combine[T any](filters []func(T) bool, anyMatch bool, v T) bool {
	if len(filters) == 0 {
		return true
	}
	for _, f := range filters {
		if f(v) == anyMatch {
			return anyMatch
		}
	}
	return !anyMatch
}

// checkQuery refuses query parameters the endpoint does not know, so a
// client cannot believe a filter was applied when it was not.
func checkQuery(q url.Values, known []string) *apiError {
	for k := range q {
		ok := false
		for _, n := range known {
			ok = ok || n == k
		}
		if !ok {
			return newErr(400, CodeInvalidQuery, fmt.Sprintf("Query parameter %q is not supported by this endpoint of the emulator (supported: %s)", k, strings.Join(known, ", ")))
		}
	}
	return nil
}

func qget(q url.Values, k string) (string, bool) {
	v, ok := q[k]
	if !ok || len(v) == 0 {
		return "", false
	}
	return v[0], true
}

func matchMode(q url.Values) (bool, *apiError) {
	switch m, _ := qget(q, "match"); m {
	case "", "all":
		return false, nil
	case "any":
		return true, nil
	default:
		return false, newErr(400, CodeInvalidQuery, "Invalid match "+strconv.Quote(m)+"; valid: all, any")
	}
}

func direction(q url.Values) (bool, *apiError) {
	switch d, _ := qget(q, "direction"); d {
	case "", "asc":
		return false, nil
	case "desc":
		return true, nil
	default:
		return false, newErr(400, CodeInvalidQuery, "Invalid direction "+strconv.Quote(d)+"; valid: asc, desc")
	}
}

// stringFilter parses the zone-list operator form "op:value" (equal,
// not_equal, contains, starts_with, ends_with); a bare value means equal.
func stringFilter(field, v string) (func(string) bool, *apiError) {
	op, val, found := strings.Cut(v, ":")
	if !found {
		op, val = "equal", v
	}
	switch op {
	case "equal":
		return func(s string) bool { return s == val }, nil
	case "not_equal":
		return func(s string) bool { return s != val }, nil
	case "contains":
		return func(s string) bool { return strings.Contains(s, val) }, nil
	case "starts_with":
		return func(s string) bool { return strings.HasPrefix(s, val) }, nil
	case "ends_with":
		return func(s string) bool { return strings.HasSuffix(s, val) }, nil
	}
	return nil, newErr(400, CodeInvalidQuery, fmt.Sprintf("Filter %s=%q: unknown operator %q (valid: equal, not_equal, contains, starts_with, ends_with)", field, v, op))
}

// paging reads page (from 1) and per_page (min..max, default def).
func paging(q url.Values, def, min, max int) (int, int, *apiError) {
	page, perPage := 1, def
	if v, ok := qget(q, "page"); ok {
		n, err := strconv.ParseFloat(v, 64)
		p, whole := wholeNumber(n)
		if err != nil || !whole || p < 1 {
			return 0, 0, newErr(400, CodeInvalidQuery, "Invalid page "+strconv.Quote(v)+": must be an integer >= 1")
		}
		page = p
	}
	if v, ok := qget(q, "per_page"); ok {
		n, err := strconv.ParseFloat(v, 64)
		p, whole := wholeNumber(n)
		if err != nil || !whole || p < min || p > max {
			return 0, 0, newErr(400, CodeInvalidQuery, fmt.Sprintf("Invalid per_page %q: must be an integer between %d and %d", v, min, max))
		}
		perPage = p
	}
	return page, perPage, nil
}

// paginate returns the indexes of page and the result_info block.
func paginate(total, page, perPage int) ([]int, *resultInfo) {
	start := (page - 1) * perPage
	var idx []int
	for i := start; i < total && i < start+perPage; i++ {
		idx = append(idx, i)
	}
	pages := (total + perPage - 1) / perPage
	return idx, &resultInfo{Page: page, PerPage: perPage, Count: len(idx), TotalCount: total, TotalPages: pages}
}
