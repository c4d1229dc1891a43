package logging

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://user:pa55@host:8888/path?q=1": "http://xxxxx@host:8888/path?q=1",
		"https://token@host":                  "https://xxxxx@host",
		"http://u:p@ss@host/a@b":              "http://xxxxx@host/a@b",
		"user:pa55@host:8888":                 "xxxxx@host:8888",
		"http://host:8888/a@b":                "http://host:8888/a@b",
		"http://localhost:8888":               "http://localhost:8888",
		"http://u:p@host:port/x":              "http://xxxxx@host:port/x",
		"":                                    "",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRedactURLError(t *testing.T) {
	_, perr := url.Parse("http://user:pa55@host:port/")
	transport := &url.Error{Op: "Get", URL: "http://user:***@host/records", Err: errors.New("refused")}
	for _, err := range []error{perr, transport} {
		if s := RedactURLError(err).Error(); strings.Contains(s, "user") || strings.Contains(s, "pa55") {
			t.Errorf("credentials left in %q", s)
		}
	}
	plain := errors.New("http://user:pa55@host is not a URL error")
	if RedactURLError(plain) != plain {
		t.Error("another error was changed")
	}
}
