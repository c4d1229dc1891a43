package route53emu

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Number is an integer member kept as the text the client sent, so that a
// malformed or out-of-range value can be reported with AWS's wording instead
// of failing the whole XML decode. In JSON (seed files) it is a plain number.
type Number string

// NumberOf returns a *Number for n; handy in seeds built in Go.
func NumberOf(n int64) *Number { v := Number(strconv.FormatInt(n, 10)); return &v }

// UnmarshalJSON accepts 300 or "300".
func (n *Number) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*n = Number(s)
		return nil
	}
	var f json.Number
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*n = Number(f.String())
	return nil
}

// MarshalJSON writes a number when the text is one.
func (n Number) MarshalJSON() ([]byte, error) {
	if _, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return []byte(n), nil
	}
	return json.Marshal(string(n))
}

// Bool is a boolean member kept as sent ("true"/"false").
type Bool string

// BoolOf returns a Bool for b.
func BoolOf(b bool) Bool { return Bool(strconv.FormatBool(b)) }

// value reports the boolean and whether the text was a valid xsd:boolean.
func (b Bool) value() (bool, bool) {
	switch strings.TrimSpace(string(b)) {
	case "true", "1":
		return true, true
	case "false", "0":
		return false, true
	}
	return false, false
}

// UnmarshalJSON accepts true or "true".
func (b *Bool) UnmarshalJSON(data []byte) error {
	var v bool
	if err := json.Unmarshal(data, &v); err == nil {
		*b = BoolOf(v)
		return nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	*b = Bool(s)
	return nil
}

// MarshalJSON writes a JSON boolean when the text is one.
func (b Bool) MarshalJSON() ([]byte, error) {
	if v, ok := b.value(); ok {
		return json.Marshal(v)
	}
	return json.Marshal(string(b))
}

// UnmarshalJSON lets seed files list values as ["1.2.3.4", "5.6.7.8"].
func (r *ResourceRecords) UnmarshalJSON(b []byte) error {
	var values []string
	if err := json.Unmarshal(b, &values); err != nil {
		return err
	}
	r.Items = make([]ResourceRecord, len(values))
	for i, v := range values {
		r.Items[i].Value = v
	}
	return nil
}

// MarshalJSON writes the values as a plain string array.
func (r ResourceRecords) MarshalJSON() ([]byte, error) {
	values := make([]string, len(r.Items))
	for i, it := range r.Items {
		values[i] = it.Value
	}
	return json.Marshal(values)
}
