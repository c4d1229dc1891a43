package publicip

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"unicode/utf8"
)

// echoMaxBody bounds what is read from an echo server: an IPv6 address is at most 45 characters, so
// anything near this size is not an address, and a misbehaving server cannot make us buffer much.
const echoMaxBody = 256

// EchoSource asks an HTTP(S) URL that answers with the caller's address as plain text
// (--public-ip-echo-url), as ifconfig.me, icanhazip.com, api.ipify.org or a router's own page do.
// The body must be one IP address, optionally surrounded by whitespace; anything else is rejected.
type EchoSource struct {
	URL    string
	Client *http.Client
}

// NewEchoSource checks the URL and returns the source; client nil means a client of its own.
func NewEchoSource(rawURL string, client *http.Client) (*EchoSource, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--public-ip-echo-url=%q: want an http:// or https:// URL", redactURL(rawURL))
	}
	if client == nil {
		client = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	return &EchoSource{URL: rawURL, Client: client}, nil
}

// Name implements Source. Credentials in the URL are not shown.
func (s *EchoSource) Name() string { return "http " + redactURL(s.URL) }

// Lookup implements Source. The caller's context bounds the whole exchange.
func (s *EchoSource) Lookup(ctx context.Context) ([]netip.Addr, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL, nil)
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Accept", "text/plain")
	req.Header.Set("User-Agent", "zonekeeper-publicip")
	resp, err := s.Client.Do(req)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // the URL is already in the source name
		}
		return nil, fmt.Errorf("request failed: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, echoMaxBody+1))
	if err != nil {
		return nil, fmt.Errorf("reading the answer: %w", err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fmt.Errorf("answered HTTP %s", resp.Status)
	}
	if len(body) > echoMaxBody {
		return nil, fmt.Errorf("answered more than %d bytes, which is not an IP address", echoMaxBody)
	}
	text := strings.TrimSpace(string(body))
	ip, err := netip.ParseAddr(text)
	if err != nil || ip.Zone() != "" {
		return nil, fmt.Errorf("answered %s, which is not an IP address", quoteSnippet(text))
	}
	return []netip.Addr{ip}, nil
}

// Close drops the idle keep-alive connections (and their goroutines) when the Discoverer stops.
func (s *EchoSource) Close() { s.Client.CloseIdleConnections() }

// quoteSnippet quotes the start of an untrusted answer for a log line.
func quoteSnippet(s string) string {
	const max = 64
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return fmt.Sprintf("%q…", s[:cut])
	}
	return fmt.Sprintf("%q", s)
}

// redactURL hides what may be a secret in the URL: the password of the user info and the query (a
// router's status page may take an API token there).
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "<unparsable URL>"
	}
	if u.RawQuery != "" {
		u.RawQuery = "redacted"
	}
	u.Fragment = ""
	return u.Redacted()
}
