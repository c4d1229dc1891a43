package plan

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// DomainFilter selects the DNS names zonekeeper manages, with external-dns's --domain-filter,
// --exclude-domains, --regex-domain-filter and --regex-domain-exclusion semantics. The zero value
// matches every name. It is immutable and safe for concurrent use.
type DomainFilter struct {
	filters  []string // normalised; a leading "." means "strictly below this name"
	excludes []string // same form as filters
	// regex and regexExclusion replace filters and excludes when either is set.
	regex          *regexp.Regexp
	regexExclusion *regexp.Regexp
	// also are filters a name must match as well: a webhook provider's negotiated filter beside the
	// flags, as external-dns matches both.
	also []DomainFilter
}

// And returns a filter that selects the names both filters select.
func (df DomainFilter) And(other DomainFilter) DomainFilter {
	if !other.IsConfigured() {
		return df
	}
	out := df
	out.also = append(append([]DomainFilter(nil), df.also...), other)
	return out
}

// NewDomainFilter builds a filter. filters and excludes are domain suffixes ("example.com" matches
// example.com and every name below it; ".example.com" only the names below it). regex and
// regexExclusion are Go regular expressions matched against the lower-case, punycode name without a
// trailing dot; when either is non-empty the plain filters are ignored, as in external-dns.
func NewDomainFilter(filters, excludes []string, regex, regexExclusion string) (DomainFilter, error) {
	var df DomainFilter
	var err error
	if df.regex, err = compileDomainRegex("--regex-domain-filter", regex); err != nil {
		return DomainFilter{}, err
	}
	if df.regexExclusion, err = compileDomainRegex("--regex-domain-exclusion", regexExclusion); err != nil {
		return DomainFilter{}, err
	}
	df.filters = normalizeDomainFilters(filters)
	df.excludes = normalizeDomainFilters(excludes)
	return df, nil
}

func compileDomainRegex(flag, expr string) (*regexp.Regexp, error) {
	if expr == "" {
		return nil, nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("%s %q is not a valid regular expression: %v", flag, expr, err)
	}
	return re, nil
}

// normalizeDomainFilters puts filter entries in nameKey form, keeping a leading dot and dropping
// empty entries (an empty --domain-filter value means "no filter", not "match nothing").
func normalizeDomainFilters(in []string) []string {
	var out []string
	for _, f := range in {
		f = strings.TrimSpace(f)
		subdomainsOnly := strings.HasPrefix(f, ".")
		n := nameKey(strings.TrimPrefix(f, "."))
		if n == "" {
			continue
		}
		if subdomainsOnly {
			n = "." + n
		}
		out = append(out, n)
	}
	return out
}

// Match reports whether the filter selects a DNS name.
func (df DomainFilter) Match(name string) bool {
	return df.matchKey(nameKey(name))
}

// matchKey is Match for a name already in nameKey form.
func (df DomainFilter) matchKey(name string) bool {
	for _, a := range df.also {
		if !a.matchKey(name) {
			return false
		}
	}
	if df.regex != nil || df.regexExclusion != nil {
		if df.regexExclusion != nil && df.regexExclusion.MatchString(name) {
			return false
		}
		return df.regex == nil || df.regex.MatchString(name)
	}
	if matchesAnySuffix(df.excludes, name) {
		return false
	}
	return len(df.filters) == 0 || matchesAnySuffix(df.filters, name)
}

// matchesAnySuffix matches on label boundaries, so "example.com" does not select "badexample.com".
func matchesAnySuffix(filters []string, name string) bool {
	for _, f := range filters {
		if strings.HasPrefix(f, ".") {
			if strings.HasSuffix(name, f) {
				return true
			}
			continue
		}
		if endpoint.InDomain(name, f) {
			return true
		}
	}
	return false
}

// IsConfigured reports whether any filter, exclusion or regex was given.
func (df DomainFilter) IsConfigured() bool {
	return len(df.filters) > 0 || len(df.excludes) > 0 || df.regex != nil || df.regexExclusion != nil || len(df.also) > 0
}

// Filters returns the normalised --domain-filter entries (for the webhook negotiation and logs); the
// accessors describe this filter's own settings, not those added with And.
func (df DomainFilter) Filters() []string { return append([]string(nil), df.filters...) }

// Excludes returns the normalised --exclude-domains entries.
func (df DomainFilter) Excludes() []string { return append([]string(nil), df.excludes...) }

// Regex returns the --regex-domain-filter expression, "" when unset.
func (df DomainFilter) Regex() string { return regexString(df.regex) }

// RegexExclusion returns the --regex-domain-exclusion expression, "" when unset.
func (df DomainFilter) RegexExclusion() string { return regexString(df.regexExclusion) }

func regexString(re *regexp.Regexp) string {
	if re == nil {
		return ""
	}
	return re.String()
}
