package cloudflareemu

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
)

// recordInput is a dns_records request body (POST, PUT, PATCH, or one item
// of a batch). Each field records whether it was present, because PATCH
// changes only what is sent and null clears comment, tags and settings.
type recordInput struct {
	ID             optString
	Name           optString
	Type           optString
	Content        optString
	TTL            optNumber
	Proxied        optBool
	Priority       optNumber
	Comment        optString
	Tags           optStrings
	Settings       optSettings
	Data           optData
	PrivateRouting optBool
}

type optString struct {
	set, null bool
	v         string
}

type optNumber struct {
	set, null bool
	v         float64
}

type optBool struct {
	set, null bool
	v         bool
}

type optStrings struct {
	set, null bool
	v         []string
}

type optSettings struct {
	set, null bool
	v         map[string]bool
}

type optData struct {
	set, null bool
	v         map[string]json.RawMessage
}

// recordFields are the body keys the SDK sends for a record; anything else is
// refused so a client bug cannot pass silently.
var recordFields = []string{"id", "name", "type", "content", "ttl", "proxied", "priority", "comment", "tags", "settings", "data", "private_routing"}

// parseRecordInput decodes one record object. allowID is true for batch
// patches and puts, whose items carry the record id.
func parseRecordInput(raw json.RawMessage, allowID bool) (recordInput, *apiError) {
	var in recordInput
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return in, newErr(400, CodeInvalidJSON, "Request body is not a JSON object describing a DNS record")
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := obj[k]
		null := bytes.Equal(bytes.TrimSpace(v), []byte("null"))
		var err error
		switch k {
		case "id":
			if !allowID {
				return in, newErr(400, CodeUnknownField, "Field id is not accepted here; the record id is part of the URL")
			}
			err = decodeOpt(v, null, &in.ID.set, &in.ID.null, &in.ID.v)
		case "name":
			err = decodeOpt(v, null, &in.Name.set, &in.Name.null, &in.Name.v)
		case "type":
			err = decodeOpt(v, null, &in.Type.set, &in.Type.null, &in.Type.v)
		case "content":
			err = decodeOpt(v, null, &in.Content.set, &in.Content.null, &in.Content.v)
		case "ttl":
			err = decodeOpt(v, null, &in.TTL.set, &in.TTL.null, &in.TTL.v)
		case "proxied":
			err = decodeOpt(v, null, &in.Proxied.set, &in.Proxied.null, &in.Proxied.v)
		case "priority":
			err = decodeOpt(v, null, &in.Priority.set, &in.Priority.null, &in.Priority.v)
		case "comment":
			err = decodeOpt(v, null, &in.Comment.set, &in.Comment.null, &in.Comment.v)
		case "tags":
			err = decodeOpt(v, null, &in.Tags.set, &in.Tags.null, &in.Tags.v)
		case "settings":
			err = decodeOpt(v, null, &in.Settings.set, &in.Settings.null, &in.Settings.v)
		case "data":
			err = decodeOpt(v, null, &in.Data.set, &in.Data.null, &in.Data.v)
		case "private_routing":
			err = decodeOpt(v, null, &in.PrivateRouting.set, &in.PrivateRouting.null, &in.PrivateRouting.v)
		default:
			return in, newErr(400, CodeUnknownField, fmt.Sprintf("Unknown field %q in DNS record; known fields: %s", k, strings.Join(recordFields, ", ")))
		}
		if err != nil {
			return in, newErr(400, CodeInvalidJSON, fmt.Sprintf("Field %s has the wrong JSON type: %v", k, err))
		}
	}
	return in, nil
}

func decodeOpt[T any](raw json.RawMessage, null bool, set, isNull *bool, dst *T) error {
	*set = true
	if null {
		*isNull = true
		return nil
	}
	return json.Unmarshal(raw, dst)
}

// wholeNumber converts a JSON number to an int, refusing fractions.
func wholeNumber(v float64) (int, bool) {
	if v != math.Trunc(v) || math.IsInf(v, 0) || math.Abs(v) > 1<<31 {
		return 0, false
	}
	return int(v), true
}
