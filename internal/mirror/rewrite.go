package mirror

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/netip"
)

// object is a JSON object as an ordered list of fields, so a rewritten value keeps the field order
// (and the bytes of every field no rule touched) of the source.
type object []field

type field struct {
	name  string
	value json.RawMessage
}

// decodeObject parses a JSON object. Anything else (an array, a bare string, invalid JSON) is an error:
// such a value is copied as it is.
func decodeObject(raw []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	var obj object
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		obj = append(obj, field{name: name, value: v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("trailing data after the JSON object")
	}
	return obj, nil
}

func (o object) get(name string) (json.RawMessage, bool) {
	for _, f := range o {
		if f.name == name {
			return f.value, true
		}
	}
	return nil, false
}

func (o object) str(name string) string {
	raw, ok := o.get(name)
	if !ok {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// set replaces the field (in place, keeping its position) or appends it, and reports whether the
// stored bytes changed.
func (o *object) set(name string, value json.RawMessage) bool {
	for i, f := range *o {
		if f.name == name {
			if bytes.Equal(f.value, value) {
				return false
			}
			(*o)[i].value = value
			return true
		}
	}
	*o = append(*o, field{name: name, value: value})
	return true
}

func (o object) encode() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(f.name) // a string always marshals
		b.Write(name)
		b.WriteByte(':')
		b.Write(f.value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// matches reports whether the entry is of the kind m selects, judged the way CoreDNS answers it.
func (o object) matches(m Match) bool {
	if m == MatchAny {
		return true
	}
	host, text := o.str("host"), o.str("text")
	addr, err := netip.ParseAddr(host)
	isIP := host != "" && err == nil
	switch m {
	case MatchIP:
		return isIP
	case MatchIPv4:
		return isIP && addr.Unmap().Is4()
	case MatchIPv6:
		return isIP && !addr.Unmap().Is4()
	case MatchName:
		return host != "" && !isIP && text == ""
	case MatchText:
		return host == "" && text != ""
	}
	return false
}

// rewrite applies the rules to one source value. It returns the value unchanged (the same bytes) when
// no rule applies or no rule changes anything. notObject reports a value that is not a JSON object and
// so was copied without looking at the rules.
func rewrite(rules []Rule, srcKey string, value []byte) (out []byte, notObject bool) {
	if len(rules) == 0 {
		return value, false
	}
	obj, err := decodeObject(value)
	if err != nil {
		return value, true
	}
	changed := false
	for _, r := range rules {
		if !keyMatches(r.Keys, srcKey) || !obj.matches(r.Match) {
			continue
		}
		if obj.set(r.Field, r.Value) {
			changed = true
		}
	}
	if !changed {
		return value, false
	}
	return obj.encode(), false
}

// keyMatches reports whether key is one of paths or below one of them (at a "/" boundary, so
// /skydns/com/example/www does not cover /skydns/com/example/www2). No paths means every key.
func keyMatches(paths []string, key string) bool {
	if len(paths) == 0 {
		return true
	}
	for _, p := range paths {
		if underPath(key, p) {
			return true
		}
	}
	return false
}

func underPath(key, p string) bool {
	if len(key) < len(p) || key[:len(p)] != p {
		return false
	}
	return len(key) == len(p) || p[len(p)-1] == '/' || key[len(p)] == '/'
}
