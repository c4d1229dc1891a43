package azurednsemu

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// wireRecordSet is a RecordSet request body. Go's JSON decoding matches
// names case-insensitively, so one struct reads both APIs' spellings
// ("TTL"/"ttl", "ARecords"/"aRecords"); fields only one swagger has are
// refused for the other in checkFields.
type wireRecordSet struct {
	ID         *string    `json:"id"`
	Name       *string    `json:"name"`
	Type       *string    `json:"type"`
	Etag       *string    `json:"etag"`
	Properties *wireProps `json:"properties"`
}

type wireProps struct {
	Metadata          map[string]*string `json:"metadata"`
	TTL               *int64             `json:"TTL"`
	Fqdn              *string            `json:"fqdn"`
	ProvisioningState *string            `json:"provisioningState"`
	IsAutoRegistered  *bool              `json:"isAutoRegistered"`
	TargetResourceID  *string            `json:"targetResourceId"`
	TargetResource    json.RawMessage    `json:"targetResource"`
	A                 []wireA            `json:"ARecords"`
	AAAA              []wireAAAA         `json:"AAAARecords"`
	MX                []wireMX           `json:"MXRecords"`
	NS                []wireNS           `json:"NSRecords"`
	PTR               []wirePTR          `json:"PTRRecords"`
	SRV               []wireSRV          `json:"SRVRecords"`
	TXT               []wireTXT          `json:"TXTRecords"`
	CNAME             *wireCNAME         `json:"CNAMERecord"`
	SOA               *wireSOA           `json:"SOARecord"`
	CAA               []wireCAA          `json:"caaRecords"`
}

type wireA struct {
	IPv4Address *string `json:"ipv4Address"`
}
type wireAAAA struct {
	IPv6Address *string `json:"ipv6Address"`
}
type wireMX struct {
	Preference *int32  `json:"preference"`
	Exchange   *string `json:"exchange"`
}
type wireNS struct {
	NSDName *string `json:"nsdname"`
}
type wirePTR struct {
	PTRDName *string `json:"ptrdname"`
}
type wireSRV struct {
	Priority *int32  `json:"priority"`
	Weight   *int32  `json:"weight"`
	Port     *int32  `json:"port"`
	Target   *string `json:"target"`
}
type wireTXT struct {
	Value []string `json:"value"`
}
type wireCNAME struct {
	CNAME *string `json:"cname"`
}
type wireCAA struct {
	Flags *int32  `json:"flags"`
	Tag   *string `json:"tag"`
	Value *string `json:"value"`
}
type wireSOA struct {
	Host         *string `json:"host"`
	Email        *string `json:"email"`
	SerialNumber *int64  `json:"serialNumber"`
	RefreshTime  *int64  `json:"refreshTime"`
	RetryTime    *int64  `json:"retryTime"`
	ExpireTime   *int64  `json:"expireTime"`
	MinimumTTL   *int64  `json:"minimumTTL"`
}

// decodeStrict decodes one JSON value, refusing unknown fields and
// trailing data, with the offending field named.
func decodeStrict(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("the request body is empty")
		}
		return fmt.Errorf("the request body is not valid: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	if dec.More() {
		return fmt.Errorf("the request body has data after the JSON value")
	}
	return nil
}

// checkFields refuses properties the API's swagger does not have and the
// alias (target resource) record sets the emulator does not implement.
func (p *wireProps) checkFields(api string) error {
	if p == nil {
		return nil
	}
	if p.TargetResourceID != nil || p.TargetResource != nil {
		return fmt.Errorf("properties.targetResource: alias record sets are not emulated")
	}
	if api == APIPrivateDNS {
		switch {
		case p.NS != nil:
			return fmt.Errorf("properties.NSRecords: not a property of a private DNS record set")
		case p.CAA != nil:
			return fmt.Errorf("properties.caaRecords: not a property of a private DNS record set")
		case p.ProvisioningState != nil:
			return fmt.Errorf("properties.provisioningState: not a property of a private DNS record set")
		}
	} else if p.IsAutoRegistered != nil {
		return fmt.Errorf("properties.isAutoRegistered: not a property of a public DNS record set")
	}
	return nil
}

// lists returns which record lists the body sets (present, even if empty).
func (p *wireProps) lists() []string {
	var out []string
	add := func(ok bool, name string) {
		if ok {
			out = append(out, name)
		}
	}
	add(p.A != nil, "a")
	add(p.AAAA != nil, "aaaa")
	add(p.MX != nil, "mx")
	add(p.NS != nil, "ns")
	add(p.PTR != nil, "ptr")
	add(p.SRV != nil, "srv")
	add(p.TXT != nil, "txt")
	add(p.CNAME != nil, "cname")
	add(p.SOA != nil, "soa")
	add(p.CAA != nil, "caa")
	return out
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func i32(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

func i64(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// apply writes the body's properties into r. With patch, absent fields keep
// r's values (RecordSets_Update); otherwise absent fields are cleared
// (RecordSets_CreateOrUpdate replaces the set).
func (p *wireProps) apply(api string, r *recordSet, patch bool) error {
	if p == nil {
		p = &wireProps{}
	}
	for _, l := range p.lists() {
		if l != typeList[r.typ] {
			return fmt.Errorf("properties.%s: not allowed in a record set of type %s", wireName(api, l), r.typ)
		}
	}
	if p.TTL != nil || !patch {
		r.ttl = i64(p.TTL)
	}
	if p.Metadata != nil || !patch {
		r.metadata = nil
		for k, v := range p.Metadata {
			if r.metadata == nil {
				r.metadata = map[string]string{}
			}
			r.metadata[k] = str(v)
		}
	}
	if patch && len(p.lists()) == 0 {
		return nil
	}
	soa := r.soa
	*r = recordSet{name: r.name, typ: r.typ, ttl: r.ttl, metadata: r.metadata, etag: r.etag, auto: r.auto}
	for _, v := range p.A {
		r.a = append(r.a, str(v.IPv4Address))
	}
	for _, v := range p.AAAA {
		r.aaaa = append(r.aaaa, str(v.IPv6Address))
	}
	for _, v := range p.NS {
		r.ns = append(r.ns, str(v.NSDName))
	}
	for _, v := range p.PTR {
		r.ptr = append(r.ptr, str(v.PTRDName))
	}
	for _, v := range p.MX {
		r.mx = append(r.mx, mxRecord{Preference: i32(v.Preference), Exchange: str(v.Exchange)})
	}
	for _, v := range p.SRV {
		r.srv = append(r.srv, srvRecord{Priority: i32(v.Priority), Weight: i32(v.Weight), Port: i32(v.Port), Target: str(v.Target)})
	}
	for _, v := range p.TXT {
		r.txt = append(r.txt, append([]string{}, v.Value...))
	}
	for _, v := range p.CAA {
		r.caa = append(r.caa, caaRecord{Flags: i32(v.Flags), Tag: str(v.Tag), Value: str(v.Value)})
	}
	if p.CNAME != nil {
		c := str(p.CNAME.CNAME)
		r.cname = &c
	}
	if p.SOA != nil {
		// The host of the SOA record is Azure's name server and cannot be
		// changed; the other fields can.
		n := soaRecord{Email: str(p.SOA.Email), Serial: i64(p.SOA.SerialNumber), Refresh: i64(p.SOA.RefreshTime),
			Retry: i64(p.SOA.RetryTime), Expire: i64(p.SOA.ExpireTime), MinimumTTL: i64(p.SOA.MinimumTTL)}
		if soa != nil {
			n.Host = soa.Host
		}
		r.soa = &n
	}
	return nil
}

// wireOut renders a record set as the API's RecordSet JSON, with only the
// properties its swagger definition has.
func wireOut(z *zone, r *recordSet) map[string]any {
	api := z.api
	props := map[string]any{wireName(api, "ttl"): r.ttl, "fqdn": fqdn(z, r)}
	if r.metadata != nil {
		props["metadata"] = r.metadata
	}
	if api == APIDNS {
		props["provisioningState"] = "Succeeded"
	} else {
		props["isAutoRegistered"] = r.auto
	}
	list := wireName(api, typeList[r.typ])
	objs := func(n int, f func(i int) map[string]any) []map[string]any {
		out := make([]map[string]any, 0, n)
		for i := 0; i < n; i++ {
			out = append(out, f(i))
		}
		return out
	}
	switch r.typ {
	case "A":
		props[list] = objs(len(r.a), func(i int) map[string]any { return map[string]any{"ipv4Address": r.a[i]} })
	case "AAAA":
		props[list] = objs(len(r.aaaa), func(i int) map[string]any { return map[string]any{"ipv6Address": r.aaaa[i]} })
	case "NS":
		props[list] = objs(len(r.ns), func(i int) map[string]any { return map[string]any{"nsdname": r.ns[i]} })
	case "PTR":
		props[list] = objs(len(r.ptr), func(i int) map[string]any { return map[string]any{"ptrdname": r.ptr[i]} })
	case "MX":
		props[list] = objs(len(r.mx), func(i int) map[string]any {
			return map[string]any{"preference": r.mx[i].Preference, "exchange": r.mx[i].Exchange}
		})
	case "SRV":
		props[list] = objs(len(r.srv), func(i int) map[string]any {
			s := r.srv[i]
			return map[string]any{"priority": s.Priority, "weight": s.Weight, "port": s.Port, "target": s.Target}
		})
	case "TXT":
		props[list] = objs(len(r.txt), func(i int) map[string]any { return map[string]any{"value": r.txt[i]} })
	case "CAA":
		props[list] = objs(len(r.caa), func(i int) map[string]any {
			return map[string]any{"flags": r.caa[i].Flags, "tag": r.caa[i].Tag, "value": r.caa[i].Value}
		})
	case "CNAME":
		if r.cname != nil {
			props[list] = map[string]any{"cname": *r.cname}
		}
	case "SOA":
		if s := r.soa; s != nil {
			props[list] = map[string]any{"host": s.Host, "email": s.Email, "serialNumber": s.Serial, "refreshTime": s.Refresh,
				"retryTime": s.Retry, "expireTime": s.Expire, wireName(api, "minimumTTL"): s.MinimumTTL}
		}
	}
	return map[string]any{
		"id":         zoneID(z) + "/" + r.typ + "/" + r.name,
		"name":       r.name,
		"type":       zoneResourceType(api) + "/" + r.typ,
		"etag":       r.etag,
		"properties": props,
	}
}

func fqdn(z *zone, r *recordSet) string {
	if r.name == "@" {
		return z.name + "."
	}
	return r.name + "." + z.name + "."
}
