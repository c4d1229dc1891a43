package googlednsemu

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
)

// MaxPageSize bounds maxResults, so a client cannot ask for an unbounded
// page (an emulator choice; Google documents no bound).
const MaxPageSize = 10000

// pageSize reads maxResults: absent means the server's default page.
func (s *Server) pageSize(rq *request) (int, *apiError) {
	v := rq.query.Get("maxResults")
	if v == "" {
		return s.opts.PageSize, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > MaxPageSize {
		return 0, newErr(http.StatusBadRequest, "invalid", "Invalid value for 'parameters.maxResults': '"+v+"' (want an integer from 0 to "+strconv.Itoa(MaxPageSize)+").")
	}
	if n == 0 {
		n = s.opts.PageSize
	}
	return n, nil
}

// A page token carries the last key returned and the filters of the list
// it continues, so a token reused with other filters is refused rather
// than giving a page of another listing.
func makePageToken(filters, lastKey string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(filters + "\x00" + lastKey))
}

// readPageToken returns the key to start after ("" without a token).
func readPageToken(rq *request, filters string) (string, *apiError) {
	tok := rq.query.Get("pageToken")
	if tok == "" {
		return "", nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	f, last, ok := strings.Cut(string(raw), "\x00")
	if err != nil || !ok || f != filters {
		return "", newErr(http.StatusBadRequest, "invalid", "Invalid value for 'parameters.pageToken': '"+tok+"' does not continue a list with these parameters.")
	}
	return last, nil
}
