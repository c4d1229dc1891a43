package azurednsemu

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"sort"
	"strconv"
)

// pageOf returns the items after the request's $skipToken, at most the
// page size ($top shortens it), and the nextLink for the rest. Items must be
// sorted by key; the skip token is the last key returned, so a page is
// stable under writes between calls.
func pageOf[T any](s *Server, rq *request, items []T, key func(T) string) ([]T, string, *armError) {
	size := s.opts.PageSize
	if v := rq.query.Get("$top"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, "", newErr(http.StatusBadRequest, "BadRequest", "The query parameter $top must be a positive integer, got '"+v+"'.")
		}
		size = min(size, n)
	}
	start := 0
	if t := rq.query.Get("$skipToken"); t != "" {
		after, err := base64.RawURLEncoding.DecodeString(t)
		if err != nil {
			return nil, "", newErr(http.StatusBadRequest, "BadRequest", "The query parameter $skipToken is not a token this emulator issued.")
		}
		start = sort.Search(len(items), func(i int) bool { return key(items[i]) > string(after) })
	}
	end := min(len(items), start+size)
	page := items[start:end]
	if end == len(items) {
		return page, "", nil
	}
	q := url.Values{}
	for k, v := range rq.query {
		q[k] = v
	}
	q.Set("$skipToken", base64.RawURLEncoding.EncodeToString([]byte(key(items[end-1]))))
	scheme := "https"
	if rq.http.TLS == nil {
		scheme = "http"
	}
	return page, scheme + "://" + rq.http.Host + rq.http.URL.EscapedPath() + "?" + q.Encode(), nil
}

// listResult is the {value, nextLink} shape of every *ListResult.
func listResult[T any](value []T, next string) map[string]any {
	out := map[string]any{"value": value}
	if value == nil {
		out["value"] = []T{}
	}
	if next != "" {
		out["nextLink"] = next
	}
	return out
}
