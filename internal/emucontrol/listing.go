package emucontrol

import (
	"bytes"
	"encoding/json"
	"time"
)

// ReplyFaults answers GET/POST/DELETE faults for the emulators that list
// request faults next to per-record failures:
//
//	{"faults":[Fault + "remaining"],"<recordsKey>":[…]}
//
// remaining reads how long each fault still lasts; a fault with a deadline
// gets "remaining":"42s" after its own fields, because a fault's duration is
// not one of its JSON fields (it is posted as a string and counts down).
func ReplyFaults[F any](x *Exchange, faults []F, remaining func(F) time.Duration, recordsKey string, records any) {
	var out bytes.Buffer
	out.WriteString(`{"faults":[`)
	for i, f := range faults {
		if i > 0 {
			out.WriteByte(',')
		}
		obj, err := json.Marshal(f)
		if err != nil {
			x.Fail(500, err.Error())
			return
		}
		if d := remaining(f); d > 0 {
			obj = withField(obj, "remaining", d.String())
		}
		out.Write(obj)
	}
	out.WriteString(`],`)
	key, _ := json.Marshal(recordsKey)
	out.Write(key)
	out.WriteByte(':')
	recs, err := json.Marshal(records)
	if err != nil {
		x.Fail(500, err.Error())
		return
	}
	out.Write(recs)
	out.WriteString("}\n")
	x.W.Header().Set("Content-Type", "application/json")
	_, _ = x.W.Write(out.Bytes())
}

// withField appends "key":value as the last member of the JSON object obj.
func withField(obj []byte, key, value string) []byte {
	member, _ := json.Marshal(map[string]string{key: value})
	body := bytes.TrimSuffix(bytes.TrimSpace(obj), []byte("}"))
	if !bytes.Equal(bytes.TrimSpace(body), []byte("{")) {
		body = append(body, ',')
	}
	return append(body, member[1:]...)
}
