package mirror

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Match says which entries a rule rewrites. etcd-injector applied every rule to every value, which
// turned CNAME entries into A records and added a host to external-dns's TXT-only ownership entries;
// the default here is MatchIP, so those entries are copied unchanged unless a rule asks otherwise.
type Match string

// The kinds of entry a rule can select, by how CoreDNS answers them (its type comes from `host` and
// `text`).
const (
	// MatchIP selects entries whose host is an IPv4 or IPv6 address (A/AAAA, with or without text).
	MatchIP Match = "ip"
	// MatchIPv4 selects entries whose host is an IPv4 address (A).
	MatchIPv4 Match = "ipv4"
	// MatchIPv6 selects entries whose host is an IPv6 address (AAAA).
	MatchIPv6 Match = "ipv6"
	// MatchName selects entries whose host is a name and that have no text (CNAME).
	MatchName Match = "name"
	// MatchText selects entries with text and no host (TXT, such as ownership records).
	MatchText Match = "text"
	// MatchAny selects every JSON object value: etcd-injector's behaviour.
	MatchAny Match = "any"
)

// Rule is one line of the rules file: set Field to Value in the entries it matches.
type Rule struct {
	// Field is the top-level JSON field the rule sets ("host" for jsonpath .host).
	Field string
	// Value is the JSON encoding of the literal to store.
	Value json.RawMessage
	// Match selects entries by kind (MatchIP when the rule does not say).
	Match Match
	// Keys, when not empty, limits the rule to source keys equal to or below one of these paths.
	Keys []string
	// Line is the rule's line in the rules file, for messages.
	Line int
}

// jsonPathPattern is the subset of jq paths etcd-injector users write: one top-level field.
var jsonPathPattern = regexp.MustCompile(`^\.([A-Za-z_][A-Za-z0-9_]*)$`)

// intFields and boolFields are SkyDNS fields whose type CoreDNS's decoder enforces: a string there
// would make CoreDNS drop the whole entry, so a rule that would write one is refused when it is read.
var (
	intFields  = map[string]bool{"ttl": true, "port": true, "priority": true, "weight": true, "targetstrip": true}
	boolFields = map[string]bool{"mail": true}
	strFields  = map[string]bool{"host": true, "text": true, "group": true, "key": true}
)

// LoadRules reads a rules file. An empty path means no rules (every entry is copied unchanged).
func LoadRules(path string) ([]Rule, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--rules-filepath: %w", err)
	}
	rules, err := ParseRules(b)
	if err != nil {
		return nil, fmt.Errorf("rules file %s: %w", path, err)
	}
	return rules, nil
}

// ParseRules parses etcd-injector's rules format: a YAML list of {jsonpath, repl}, where jsonpath is a
// top-level field (".host", ".ttl") and repl a string, integer or boolean literal. Two optional keys
// are zonekeeper's: match (ip, ipv4, ipv6, name, text, any; default ip) and keys (list of source key
// paths the rule is limited to). Errors name the line.
func ParseRules(data []byte) ([]Rule, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	list := doc.Content[0]
	if list.Kind == yaml.ScalarNode && list.Tag == "!!null" {
		return nil, nil
	}
	if list.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("line %d: the rules file must be a list of rules like \"- jsonpath: .host\\n  repl: 203.0.113.7\"", list.Line)
	}
	var rules []Rule
	var errs []error
	for _, item := range list.Content {
		r, err := parseRule(item)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		rules = append(rules, r)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return rules, nil
}

func parseRule(n *yaml.Node) (Rule, error) {
	r := Rule{Line: n.Line, Match: MatchIP}
	if n.Kind != yaml.MappingNode {
		return r, fmt.Errorf("line %d: a rule must be a mapping with jsonpath and repl", n.Line)
	}
	var path, repl *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		// etcd-injector's example file writes JSONPath and Repl; its decoder wanted jsonpath and repl.
		switch strings.ToLower(k.Value) {
		case "jsonpath":
			path = v
		case "repl":
			repl = v
		case "match":
			m := Match(strings.ToLower(v.Value))
			switch m {
			case MatchIP, MatchIPv4, MatchIPv6, MatchName, MatchText, MatchAny:
				r.Match = m
			default:
				return r, fmt.Errorf("line %d: match %q: must be one of ip, ipv4, ipv6, name, text, any", v.Line, v.Value)
			}
		case "keys":
			var keys []string
			if err := v.Decode(&keys); err != nil {
				return r, fmt.Errorf("line %d: keys: must be a list of etcd key paths: %v", v.Line, err)
			}
			for _, key := range keys {
				if key == "" {
					return r, fmt.Errorf("line %d: keys: an empty key would match everything; leave keys out instead", v.Line)
				}
			}
			r.Keys = keys
		default:
			return r, fmt.Errorf("line %d: unknown key %q (a rule has jsonpath, repl, and optionally match and keys)", k.Line, k.Value)
		}
	}
	if path == nil {
		return r, fmt.Errorf("line %d: jsonpath is missing", n.Line)
	}
	if repl == nil {
		return r, fmt.Errorf("line %d: repl is missing", n.Line)
	}
	m := jsonPathPattern.FindStringSubmatch(path.Value)
	if m == nil {
		return r, fmt.Errorf("line %d: jsonpath %q is not supported: only a top-level field such as .host or .ttl", path.Line, path.Value)
	}
	r.Field = m[1]
	v, err := replValue(r.Field, repl)
	if err != nil {
		return r, fmt.Errorf("line %d: repl for .%s: %w", repl.Line, r.Field, err)
	}
	r.Value = v
	return r, nil
}

// replValue encodes the literal as JSON (properly escaped, unlike etcd-injector's string splicing) and
// checks it fits the SkyDNS field's type.
func replValue(field string, n *yaml.Node) (json.RawMessage, error) {
	if n.Kind != yaml.ScalarNode {
		return nil, errors.New("must be a string, integer or boolean literal")
	}
	var v any
	switch n.Tag {
	case "!!str":
		v = n.Value
	case "!!int":
		var i int64
		if err := n.Decode(&i); err != nil {
			return nil, err
		}
		v = i
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return nil, err
		}
		v = b
	default:
		return nil, fmt.Errorf("%q is a %s; must be a string, integer or boolean literal", n.Value, strings.TrimPrefix(n.Tag, "!!"))
	}
	switch x := v.(type) {
	case string:
		if intFields[field] || boolFields[field] {
			return nil, fmt.Errorf("%q is a string but CoreDNS reads .%s as a number or boolean", x, field)
		}
	case int64:
		if strFields[field] || boolFields[field] {
			return nil, fmt.Errorf("%d is a number but CoreDNS reads .%s as a string or boolean", x, field)
		}
		if field == "ttl" && (x < 0 || x > 1<<32-1) {
			return nil, fmt.Errorf("%d is outside 0..4294967295", x)
		}
	case bool:
		if strFields[field] || intFields[field] {
			return nil, fmt.Errorf("%t is a boolean but CoreDNS reads .%s as a string or number", x, field)
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return b, nil
}
