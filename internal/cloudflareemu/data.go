package cloudflareemu

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// recordData is the structured value of SRV, CAA and TLSA records. Only the
// fields of the record's type are used.
type recordData struct {
	// SRV
	Priority, Weight, Port int
	Target                 string
	// CAA
	Flags      int
	Tag, Value string
	// TLSA
	Usage, Selector, MatchingType int
	Certificate                   string
}

// render is the data object of responses, with the keys the SDK's
// SRVRecordData, CAARecordData and TLSARecordData types know.
func (d *recordData) render(typ string) map[string]any {
	switch typ {
	case "SRV":
		return map[string]any{"priority": d.Priority, "weight": d.Weight, "port": d.Port, "target": d.Target}
	case "CAA":
		return map[string]any{"flags": d.Flags, "tag": d.Tag, "value": d.Value}
	case "TLSA":
		return map[string]any{"usage": d.Usage, "selector": d.Selector, "matching_type": d.MatchingType, "certificate": d.Certificate}
	}
	return nil
}

// content is the canonical text form Cloudflare shows for the data: SRV as
// "weight port target" (the priority is a separate field), CAA as
// `flags tag "value"`, TLSA with the digest in upper case.
func (d *recordData) content(typ string) string {
	switch typ {
	case "SRV":
		return fmt.Sprintf("%d %d %s", d.Weight, d.Port, d.Target)
	case "CAA":
		return fmt.Sprintf("%d %s %q", d.Flags, d.Tag, d.Value)
	case "TLSA":
		return fmt.Sprintf("%d %d %d %s", d.Usage, d.Selector, d.MatchingType, strings.ToUpper(d.Certificate))
	}
	return ""
}

// applyData sets data (and content) for SRV, CAA and TLSA from either the
// data object or, for SRV and CAA, the content text.
func applyData(r *record, in recordInput, patch bool) *apiError {
	var d *recordData
	var e *apiError
	switch {
	case in.Data.set && !in.Data.null:
		d, e = dataFromObject(r, in.Data.v)
	case in.Content.set && !in.Content.null && in.Content.v != "":
		d, e = dataFromContent(r, in)
	case patch && r.data != nil:
		d = r.data
	default:
		return newErr(400, CodeInvalidData, fmt.Sprintf("%s record %s needs a data object", r.typ, r.name))
	}
	if e != nil {
		return e
	}
	if e := checkData(r, d); e != nil {
		return e
	}
	r.data = d
	r.content = d.content(r.typ)
	return nil
}

func dataFromObject(r *record, obj map[string]json.RawMessage) (*recordData, *apiError) {
	allowed := map[string][]string{
		"SRV":  {"priority", "weight", "port", "target"},
		"CAA":  {"flags", "tag", "value"},
		"TLSA": {"usage", "selector", "matching_type", "certificate"},
	}[r.typ]
	d := &recordData{}
	ints := map[string]*int{"priority": &d.Priority, "weight": &d.Weight, "port": &d.Port, "flags": &d.Flags,
		"usage": &d.Usage, "selector": &d.Selector, "matching_type": &d.MatchingType}
	for k, raw := range obj {
		known := false
		for _, a := range allowed {
			known = known || a == k
		}
		if !known {
			return nil, newErr(400, CodeInvalidData, fmt.Sprintf("Field data.%s is not valid for %s records (valid: %s)", k, r.typ, strings.Join(allowed, ", ")))
		}
		var err error
		switch k {
		case "target", "tag", "value", "certificate":
			var s string
			err = json.Unmarshal(raw, &s)
			switch k {
			case "target":
				d.Target = s
			case "tag":
				d.Tag = s
			case "value":
				d.Value = s
			case "certificate":
				d.Certificate = s
			}
		default:
			var f float64
			if err = json.Unmarshal(raw, &f); err == nil {
				n, ok := wholeNumber(f)
				if !ok {
					err = fmt.Errorf("not an integer")
				}
				*ints[k] = n
			}
		}
		if err != nil {
			return nil, newErr(400, CodeInvalidData, fmt.Sprintf("Field data.%s of %s record %s is invalid: %v", k, r.typ, r.name, err))
		}
	}
	return d, nil
}

// dataFromContent parses SRV "priority weight port target" (or "weight port
// target" with the priority field) and CAA `flags tag value`. TLSA must use
// data, as on Cloudflare.
func dataFromContent(r *record, in recordInput) (*recordData, *apiError) {
	f := strings.Fields(in.Content.v)
	bad := newErr(400, CodeInvalidContent, fmt.Sprintf("Content %q of %s record %s is invalid", in.Content.v, r.typ, r.name))
	switch r.typ {
	case "SRV":
		if len(f) == 3 && in.Priority.set && !in.Priority.null {
			p, ok := wholeNumber(in.Priority.v)
			if !ok {
				return nil, bad
			}
			f = append([]string{strconv.Itoa(p)}, f...)
		}
		if len(f) != 4 {
			return nil, bad
		}
		var n [3]int
		for i := range n {
			v, err := strconv.Atoi(f[i])
			if err != nil {
				return nil, bad
			}
			n[i] = v
		}
		return &recordData{Priority: n[0], Weight: n[1], Port: n[2], Target: f[3]}, nil
	case "CAA":
		if len(f) < 3 {
			return nil, bad
		}
		flags, err := strconv.Atoi(f[0])
		if err != nil {
			return nil, bad
		}
		value := strings.TrimSpace(strings.SplitN(strings.TrimSpace(in.Content.v), " ", 3)[2])
		if uq, err := strconv.Unquote(value); err == nil {
			value = uq
		}
		return &recordData{Flags: flags, Tag: f[1], Value: value}, nil
	}
	return nil, newErr(400, CodeInvalidData, fmt.Sprintf("%s record %s must be sent with a data object, not content", r.typ, r.name))
}

func checkData(r *record, d *recordData) *apiError {
	bad := func(format string, args ...any) *apiError {
		return newErr(400, CodeInvalidData, fmt.Sprintf("%s record %s: ", r.typ, r.name)+fmt.Sprintf(format, args...))
	}
	in16 := func(v int) bool { return v >= 0 && v <= 65535 }
	switch r.typ {
	case "SRV":
		labels := strings.Split(r.name, ".")
		if len(labels) < 3 || !strings.HasPrefix(labels[0], "_") || !strings.HasPrefix(labels[1], "_") {
			return newErr(400, CodeInvalidName, fmt.Sprintf("SRV record name %s must start with _service._proto", r.name))
		}
		if !in16(d.Priority) || !in16(d.Weight) || !in16(d.Port) {
			return bad("priority, weight and port must be between 0 and 65535")
		}
		d.Target = strings.ToLower(strings.TrimSuffix(d.Target, "."))
		if d.Target != "" && !validHostname(d.Target) {
			return bad("target %q is not a host name", d.Target)
		}
		if d.Target == "" {
			d.Target = "."
		}
	case "CAA":
		if d.Flags < 0 || d.Flags > 255 {
			return bad("flags must be between 0 and 255")
		}
		switch d.Tag {
		case "issue", "issuewild", "iodef":
		default:
			return bad("tag %q must be issue, issuewild or iodef", d.Tag)
		}
	case "TLSA":
		if d.Usage < 0 || d.Usage > 3 || d.Selector < 0 || d.Selector > 1 || d.MatchingType < 0 || d.MatchingType > 2 {
			return bad("usage must be 0–3, selector 0–1 and matching_type 0–2")
		}
		if _, err := hex.DecodeString(d.Certificate); err != nil || d.Certificate == "" {
			return bad("certificate must be a hexadecimal string")
		}
	}
	return nil
}
