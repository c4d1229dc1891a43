// Package flagvalue holds the flag.Value types that zonekeeper's flag sets share: the settings of the
// main command (internal/config) and those each provider kind binds itself (internal/provider/*).
package flagvalue

import (
	"flag"
	"strings"
)

// List is a repeatable flag; a value with commas is not split (external-dns does not split either).
type List struct {
	target *[]string
	set    bool // the first Set replaces the default
}

// BindList binds a repeatable flag to p; p's current value is the default.
func BindList(fs *flag.FlagSet, p *[]string, name, usage string) {
	fs.Var(&List{target: p}, name, usage)
}

func (s *List) String() string {
	if s.target == nil {
		return ""
	}
	return strings.Join(*s.target, ",")
}

// Set appends a value; the first replaces the default.
func (s *List) Set(v string) error {
	if !s.set {
		*s.target = nil
		s.set = true
	}
	*s.target = append(*s.target, v)
	return nil
}
