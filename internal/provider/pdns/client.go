package pdns

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// client talks to the PowerDNS HTTP API of one server id.
type client struct {
	http   *http.Client
	base   *url.URL // scheme, host and optional path prefix
	server string   // server id
	apiKey string
}

// apiError is an answer of PowerDNS with a 4xx or 5xx status. Message is PowerDNS's "error" field,
// or the start of the body when it is not JSON.
type apiError struct {
	Method, Path string
	Status       int
	Message      string
}

func (e *apiError) Error() string {
	hint := ""
	switch e.Status {
	case http.StatusUnauthorized:
		hint = " (check --pdns-api-key against the server's api-key)"
	case http.StatusNotFound:
		if !strings.Contains(e.Path, "/zones/") {
			hint = " (check --pdns-server-id and that --pdns-server points at the PowerDNS webserver)"
		}
	}
	return fmt.Sprintf("PowerDNS %s %s: %d %s: %s%s", e.Method, e.Path, e.Status, http.StatusText(e.Status), e.Message, hint)
}

// unprocessable reports whether err is PowerDNS refusing the content of a request (422): the request
// was understood and nothing of it was applied, so smaller requests may succeed.
func unprocessable(err error) (*apiError, bool) {
	var ae *apiError
	if errors.As(err, &ae) && ae.Status == http.StatusUnprocessableEntity {
		return ae, true
	}
	return nil, false
}

// zonePath is the API path of a zone id; ids are canonical names with the trailing dot, escaped as a
// path segment (ids of zones with "/" in them, as RFC 2317 reverse zones, are escaped by PowerDNS
// itself as =2F).
func (c *client) zonePath(zoneID string) string {
	return "/api/v1/servers/" + url.PathEscape(c.server) + "/zones/" + url.PathEscape(zoneID)
}

func (c *client) zonesPath() string {
	return "/api/v1/servers/" + url.PathEscape(c.server) + "/zones"
}

// do sends one request and decodes a JSON answer into out (when out is not nil). Errors never contain
// the API key: it is only ever put into the request header, and transport errors are scrubbed anyway
// in case a lower layer echoes a header.
func (c *client) do(ctx context.Context, method, path string, body any, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("encode %s %s: %w", method, path, err)
		}
		rd = bytes.NewReader(b)
	}
	return c.doRaw(ctx, method, path, rd, out)
}

func (c *client) doRaw(ctx context.Context, method, path string, body io.Reader, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, c.base.String()+path, body)
	if err != nil {
		return fmt.Errorf("PowerDNS %s %s: %s", method, path, c.scrub(err.Error()))
	}
	req.Header.Set("X-API-Key", c.apiKey)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		// url.Error repeats method and URL; keep the cause.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("PowerDNS %s %s%s: %s", method, c.base.Host, path, c.scrub(err.Error()))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return fmt.Errorf("PowerDNS %s %s: reading the answer: %s", method, path, c.scrub(err.Error()))
	}
	if resp.StatusCode >= 300 {
		return &apiError{Method: method, Path: path, Status: resp.StatusCode, Message: c.scrub(errorMessage(data))}
	}
	if out == nil || len(data) == 0 {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("PowerDNS %s %s: undecodable answer: %v", method, path, err)
	}
	return nil
}

// errorMessage extracts PowerDNS's {"error": "..."} or the start of a non-JSON body.
func errorMessage(body []byte) string {
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		return e.Error
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	if s == "" {
		return "(empty answer)"
	}
	return s
}

// scrub removes the API key from a message, should anything ever echo it.
func (c *client) scrub(s string) string {
	if c.apiKey == "" {
		return s
	}
	return strings.ReplaceAll(s, c.apiKey, "<redacted>")
}
