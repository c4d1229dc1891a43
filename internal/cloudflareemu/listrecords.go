package cloudflareemu

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// recordListParams are the query parameters GET dns_records understands:
// the SDK's RecordListParams (nested fields in dot form) minus search and
// the shadow parameters.
var recordListParams = []string{
	shadowParam, "type", "proxied", "match", "tag_match", "order", "direction", "page", "per_page",
	"name", "name.exact", "name.contains", "name.startswith", "name.endswith",
	"content", "content.exact", "content.contains", "content.startswith", "content.endswith",
	"comment", "comment.exact", "comment.contains", "comment.startswith", "comment.endswith", "comment.present", "comment.absent",
	"tag", "tag.exact", "tag.contains", "tag.startswith", "tag.endswith", "tag.present", "tag.absent",
}

// listRecords implements GET dns_records with the filters above, order
// (type, name, content, ttl, proxied), direction and paging (per_page 5 to
// 5,000,000 as documented, default 100).
func (s *Server) listRecords(req request) (any, *resultInfo, *apiError) {
	z, e := s.zoneLocked(req)
	if e != nil {
		return nil, nil, e
	}
	q := req.r.URL.Query()
	if e := checkQuery(q, recordListParams); e != nil {
		return nil, nil, e
	}
	page, perPage, e := paging(q, 100, 5, 5000000)
	if e != nil {
		return nil, nil, e
	}
	anyMatch, e := matchMode(q)
	if e != nil {
		return nil, nil, e
	}
	filters, e := recordFilters(q)
	if e != nil {
		return nil, nil, e
	}
	tagFilters, tagAny, e := tagFilters(q)
	if e != nil {
		return nil, nil, e
	}
	var matched []*record
	for _, r := range z.recordsSorted() {
		if combine(filters, anyMatch, r) && combine(tagFilters, tagAny, r) {
			matched = append(matched, r)
		}
	}
	if e := orderRecords(q, matched); e != nil {
		return nil, nil, e
	}
	items, info := paginate(len(matched), page, perPage)
	out := make([]recordJSON, 0, len(items))
	for _, i := range items {
		out = append(out, renderRecord(matched[i]))
	}
	return out, info, nil
}

func recordFilters(q url.Values) ([]func(*record) bool, *apiError) {
	var fs []func(*record) bool
	if v, ok := qget(q, "type"); ok {
		t := strings.ToUpper(v)
		fs = append(fs, func(r *record) bool { return r.typ == t })
	}
	if v, ok := qget(q, "proxied"); ok {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, newErr(400, CodeInvalidQuery, "Invalid proxied "+strconv.Quote(v)+": must be true or false")
		}
		fs = append(fs, func(r *record) bool { return r.proxied == b })
	}
	fields := []struct {
		name string
		get  func(*record) string
		fold bool
	}{
		{"name", func(r *record) string { return r.name }, true},
		{"content", func(r *record) string { return r.content }, false},
		{"comment", func(r *record) string { return r.comment }, false},
	}
	for _, f := range fields {
		for _, op := range []string{"", "exact", "contains", "startswith", "endswith", "present", "absent"} {
			key := f.name
			if op != "" {
				key += "." + op
			}
			v, ok := qget(q, key)
			if !ok {
				continue
			}
			if f.fold {
				v = strings.ToLower(strings.TrimSuffix(v, "."))
			}
			get := f.get
			switch op {
			case "", "exact":
				fs = append(fs, func(r *record) bool { return get(r) == v })
			case "contains":
				fs = append(fs, func(r *record) bool { return strings.Contains(get(r), v) })
			case "startswith":
				fs = append(fs, func(r *record) bool { return strings.HasPrefix(get(r), v) })
			case "endswith":
				fs = append(fs, func(r *record) bool { return strings.HasSuffix(get(r), v) })
			case "present":
				fs = append(fs, func(r *record) bool { return get(r) != "" })
			case "absent":
				fs = append(fs, func(r *record) bool { return get(r) == "" })
			}
		}
	}
	return fs, nil
}

// tagFilters: tag / tag.exact "name:value", tag.present / tag.absent "name",
// tag.contains|startswith|endswith "name:fragment" on the value; combined by
// tag_match (all or any).
func tagFilters(q url.Values) ([]func(*record) bool, bool, *apiError) {
	var fs []func(*record) bool
	tagValue := func(r *record, name string) (string, bool) {
		for _, t := range r.tags {
			if n, v, _ := strings.Cut(t, ":"); n == name {
				return v, true
			}
		}
		return "", false
	}
	for _, op := range []string{"", "exact", "contains", "startswith", "endswith", "present", "absent"} {
		key := "tag"
		if op != "" {
			key += "." + op
		}
		for _, v := range q[key] {
			name, val, hasVal := strings.Cut(v, ":")
			if (op == "present" || op == "absent") != !hasVal {
				return nil, false, newErr(400, CodeInvalidQuery, fmt.Sprintf("Invalid %s=%q: want \"name\" for present/absent and \"name:value\" otherwise", key, v))
			}
			switch op {
			case "", "exact":
				fs = append(fs, func(r *record) bool { got, ok := tagValue(r, name); return ok && got == val })
			case "contains":
				fs = append(fs, func(r *record) bool { got, ok := tagValue(r, name); return ok && strings.Contains(got, val) })
			case "startswith":
				fs = append(fs, func(r *record) bool { got, ok := tagValue(r, name); return ok && strings.HasPrefix(got, val) })
			case "endswith":
				fs = append(fs, func(r *record) bool { got, ok := tagValue(r, name); return ok && strings.HasSuffix(got, val) })
			case "present":
				fs = append(fs, func(r *record) bool { _, ok := tagValue(r, name); return ok })
			case "absent":
				fs = append(fs, func(r *record) bool { _, ok := tagValue(r, name); return !ok })
			}
		}
	}
	var anyMatch bool
	switch m, _ := qget(q, "tag_match"); m {
	case "", "all":
	case "any":
		anyMatch = true
	default:
		return nil, false, newErr(400, CodeInvalidQuery, "Invalid tag_match "+strconv.Quote(m)+"; valid: all, any")
	}
	return fs, anyMatch, nil
}

func orderRecords(q url.Values, rs []*record) *apiError {
	order, _ := qget(q, "order")
	var less func(a, b *record) bool
	switch order {
	case "":
		// recordsSorted order: type, name, content, id.
		less = func(a, b *record) bool { return recordLess(a, b) }
	case "type":
		less = func(a, b *record) bool { return a.typ < b.typ }
	case "name":
		less = func(a, b *record) bool { return a.name < b.name }
	case "content":
		less = func(a, b *record) bool { return a.content < b.content }
	case "ttl":
		less = func(a, b *record) bool { return a.ttl < b.ttl }
	case "proxied":
		less = func(a, b *record) bool { return !a.proxied && b.proxied }
	default:
		return newErr(400, CodeInvalidQuery, "Invalid order "+strconv.Quote(order)+"; valid: type, name, content, ttl, proxied")
	}
	desc, e := direction(q)
	if e != nil {
		return e
	}
	sort.SliceStable(rs, func(i, j int) bool {
		if desc {
			return less(rs[j], rs[i])
		}
		return less(rs[i], rs[j])
	})
	return nil
}
