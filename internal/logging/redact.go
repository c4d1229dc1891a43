package logging

import (
	"net/url"
	"strings"
)

// Redacted is what stands for credentials in a URL shown in a log line or an error.
const Redacted = "xxxxx"

// RedactURL returns a URL for logs and errors: its userinfo (user:password@), which may hold
// credentials, replaced by Redacted. It works on text, so a URL that does not parse is redacted too.
// net/url's Redacted keeps the user name, which some services use as the token.
func RedactURL(raw string) string {
	prefix, rest := "", raw
	if i := strings.Index(raw, "://"); i >= 0 {
		prefix, rest = raw[:i+3], raw[i+3:]
	}
	authority := rest
	if end := strings.IndexAny(rest, "/?#"); end >= 0 {
		authority = rest[:end]
	}
	at := strings.LastIndex(authority, "@")
	if at < 0 {
		return raw
	}
	return prefix + Redacted + rest[at:]
}

// RedactURLError returns err without the userinfo of the URL it carries when it is a *url.Error, as
// net/http's client and net/url's parser return (net/http hides only the password). Call it where the
// error is returned, before it is wrapped: a wrapper's text is fixed when it is made.
func RedactURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return &url.Error{Op: ue.Op, URL: RedactURL(ue.URL), Err: ue.Err}
	}
	return err
}
