package plan

import (
	"strings"
	"testing"
)

func TestDomainFilterMatch(t *testing.T) {
	type probe struct {
		name string
		want bool
	}
	tests := []struct {
		desc                  string
		filters, excludes     []string
		regex, regexExclusion string
		probes                []probe
	}{
		{
			desc:   "empty filter matches everything",
			probes: []probe{{"example.com", true}, {"anything.org", true}},
		},
		{
			desc:    "empty entries are ignored",
			filters: []string{"", " "},
			probes:  []probe{{"anything.org", true}},
		},
		{
			desc:    "suffix on a label boundary",
			filters: []string{"example.com"},
			probes: []probe{
				{"example.com", true}, {"a.example.com", true}, {"a.b.example.com", true},
				{"badexample.com", false}, {"example.com.evil.org", false}, {"com", false}, {"example.org", false},
			},
		},
		{
			desc:    "names and filters are case- and trailing-dot-insensitive",
			filters: []string{"Example.COM."},
			probes:  []probe{{"WWW.example.com.", true}, {"www.EXAMPLE.com", true}},
		},
		{
			desc:    "leading dot selects subdomains only",
			filters: []string{".example.com"},
			probes:  []probe{{"a.example.com", true}, {"example.com", false}, {"badexample.com", false}},
		},
		{
			desc:    "several filters",
			filters: []string{"example.com", "example.org"},
			probes:  []probe{{"a.example.org", true}, {"a.example.net", false}},
		},
		{
			desc:     "exclusion wins over a filter",
			filters:  []string{"example.com"},
			excludes: []string{"internal.example.com"},
			probes: []probe{
				{"internal.example.com", false}, {"db.internal.example.com", false},
				{"www.example.com", true}, {"notinternal.example.com", true},
			},
		},
		{
			desc:     "exclusion alone",
			excludes: []string{"example.com"},
			probes:   []probe{{"example.com", false}, {"a.example.com", false}, {"badexample.com", true}},
		},
		{
			desc:    "IDNA: unicode filter matches punycode names",
			filters: []string{"bücher.example"},
			probes:  []probe{{"xn--bcher-kva.example", true}, {"www.bücher.example", true}, {"www.BÜCHER.example", true}, {"bucher.example", false}},
		},
		{
			desc:    "IDNA: punycode filter matches unicode names",
			filters: []string{"XN--BCHER-KVA.example"},
			probes:  []probe{{"shop.bücher.example", true}},
		},
		{
			desc:    "regex overrides the plain filters",
			filters: []string{"example.org"},
			regex:   `\.example\.com$`,
			probes:  []probe{{"a.example.com", true}, {"a.example.org", false}},
		},
		{
			desc:     "regex exclusion overrides plain exclusions too",
			excludes: []string{"a.example.com"},
			regex:    `example\.com$`,
			probes:   []probe{{"a.example.com", true}},
		},
		{
			desc:           "regex exclusion is checked first",
			regex:          `example\.com$`,
			regexExclusion: `^internal\.`,
			probes:         []probe{{"internal.example.com", false}, {"www.example.com", true}, {"www.example.org", false}},
		},
		{
			desc:           "regex exclusion alone",
			regexExclusion: `^internal\.`,
			probes:         []probe{{"internal.example.com", false}, {"www.example.org", true}},
		},
		{
			desc:   "regex sees the normalised name",
			regex:  `^foo\.example\.com$`,
			probes: []probe{{"FOO.Example.com.", true}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			df, err := NewDomainFilter(tc.filters, tc.excludes, tc.regex, tc.regexExclusion)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range tc.probes {
				if got := df.Match(p.name); got != p.want {
					t.Errorf("Match(%q) = %v, want %v", p.name, got, p.want)
				}
			}
		})
	}
}

func TestDomainFilterZeroValueMatchesAll(t *testing.T) {
	var df DomainFilter
	if !df.Match("anything.example") || df.IsConfigured() {
		t.Fatal("zero DomainFilter must match everything and report itself unconfigured")
	}
}

func TestDomainFilterBadRegex(t *testing.T) {
	for _, tc := range []struct{ regex, exclusion, flag string }{
		{regex: `(`, flag: "--regex-domain-filter"},
		{exclusion: `[a-`, flag: "--regex-domain-exclusion"},
	} {
		_, err := NewDomainFilter(nil, nil, tc.regex, tc.exclusion)
		if err == nil || !strings.Contains(err.Error(), tc.flag) {
			t.Errorf("NewDomainFilter(%q, %q) error = %v, want one naming %s", tc.regex, tc.exclusion, err, tc.flag)
		}
	}
}

func TestDomainFilterAccessors(t *testing.T) {
	df, err := NewDomainFilter([]string{"Example.com.", ".sub.example.org", ""}, []string{"x.example.com"}, `a`, `b`)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(df.Filters(), ","); got != "example.com,.sub.example.org" {
		t.Errorf("Filters() = %s", got)
	}
	if got := strings.Join(df.Excludes(), ","); got != "x.example.com" {
		t.Errorf("Excludes() = %s", got)
	}
	if df.Regex() != "a" || df.RegexExclusion() != "b" || !df.IsConfigured() {
		t.Errorf("regex accessors: %q %q", df.Regex(), df.RegexExclusion())
	}
}

func TestDomainFilterAnd(t *testing.T) {
	flags, err := NewDomainFilter([]string{"example.com"}, []string{"private.example.com"}, "", "")
	if err != nil {
		t.Fatal(err)
	}
	webhook, err := NewDomainFilter(nil, nil, `^(www|api)\.`, "")
	if err != nil {
		t.Fatal(err)
	}
	both := flags.And(webhook)
	for name, want := range map[string]bool{
		"www.example.com":         true,
		"api.example.com":         true,
		"mail.example.com":        false, // the webhook's regex does not select it
		"www.example.org":         false, // the flags do not
		"www.private.example.com": false, // excluded by the flags
	} {
		if got := both.Match(name); got != want {
			t.Errorf("Match(%s) = %v, want %v", name, got, want)
		}
	}
	if !(DomainFilter{}).And(webhook).IsConfigured() {
		t.Error("an empty filter and a configured one: IsConfigured() = false")
	}
	if flags.And(DomainFilter{}).Match("mail.example.com") != true {
		t.Error("And with an empty filter changed the result")
	}
	if len(both.Filters()) != 1 || flags.Match("mail.example.com") != true {
		t.Error("And modified its receiver")
	}
}
