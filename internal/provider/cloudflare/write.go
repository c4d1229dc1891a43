package cloudflare

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cloudflare/cloudflare-go/v7/dns"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// write is one record to write: one target of a record set, with the set's settings.
type write struct {
	name, typ, target string
	ttl               int64
	attrs
}

// content is what the API takes for the target: MX without its priority, SRV and TLSA as data (no
// content: the API refuses TLSA sent as content).
type content struct {
	content  string
	priority float64
	srv      *dns.SRVRecordDataParam
	tlsa     *dns.TLSARecordDataParam
}

// data is the structured value of an SRV or TLSA record, nil for the others.
func (c content) data() any {
	switch {
	case c.srv != nil:
		return *c.srv
	case c.tlsa != nil:
		return *c.tlsa
	}
	return nil
}

// contentOf splits a target into the API's fields. Errors name the target.
func contentOf(typ, target string) (content, error) {
	switch typ {
	case endpoint.RecordTypeMX:
		f := strings.Fields(target)
		if len(f) != 2 {
			return content{}, fmt.Errorf("MX target %q is not \"PRIORITY HOST\"", target)
		}
		prio, err := strconv.ParseUint(f[0], 10, 16)
		if err != nil {
			return content{}, fmt.Errorf("MX target %q: priority %q is not a number from 0 to 65535", target, f[0])
		}
		return content{content: f[1], priority: float64(prio)}, nil
	case endpoint.RecordTypeSRV:
		f := strings.Fields(target)
		if len(f) != 4 {
			return content{}, fmt.Errorf("SRV target %q is not \"PRIORITY WEIGHT PORT TARGET\"", target)
		}
		var n [3]uint64
		for i := range n {
			v, err := strconv.ParseUint(f[i], 10, 16)
			if err != nil {
				return content{}, fmt.Errorf("SRV target %q: %q is not a number from 0 to 65535", target, f[i])
			}
			n[i] = v
		}
		host := f[3]
		if host != "." {
			host = strings.TrimSuffix(host, ".")
		}
		var srv dns.SRVRecordDataParam
		srv.Priority.Value, srv.Priority.Present = float64(n[0]), true
		srv.Weight.Value, srv.Weight.Present = float64(n[1]), true
		srv.Port.Value, srv.Port.Present = float64(n[2]), true
		srv.Target.Value, srv.Target.Present = host, true
		return content{srv: &srv}, nil
	case endpoint.RecordTypeTLSA:
		f := strings.Fields(target)
		if len(f) != 4 {
			return content{}, fmt.Errorf("TLSA target %q is not \"USAGE SELECTOR MATCHING-TYPE CERTIFICATE\"", target)
		}
		var n [3]uint64
		for i := range n {
			v, err := strconv.ParseUint(f[i], 10, 8)
			if err != nil {
				return content{}, fmt.Errorf("TLSA target %q: %q is not a number from 0 to 255", target, f[i])
			}
			n[i] = v
		}
		var tlsa dns.TLSARecordDataParam
		tlsa.Usage.Value, tlsa.Usage.Present = float64(n[0]), true
		tlsa.Selector.Value, tlsa.Selector.Present = float64(n[1]), true
		tlsa.MatchingType.Value, tlsa.MatchingType.Present = float64(n[2]), true
		tlsa.Certificate.Value, tlsa.Certificate.Present = strings.ToLower(f[3]), true
		return content{tlsa: &tlsa}, nil
	}
	return content{content: target}, nil
}

// postParam is the batch "posts" entry that creates w (checked by contentOf before).
func postParam(w write) dns.RecordBatchParamsPostUnion {
	c, _ := contentOf(w.typ, w.target)
	var p dns.RecordBatchParamsPost
	p.Name.Value, p.Name.Present = w.name, true
	p.TTL.Value, p.TTL.Present = dns.TTL(w.ttl), true
	p.Type.Value, p.Type.Present = dns.RecordBatchParamsPostsType(w.typ), true
	p.Proxied.Value, p.Proxied.Present = w.proxied, true
	p.Comment.Value, p.Comment.Present = w.comment, true
	p.Tags.Value, p.Tags.Present = w.tags, true
	if data := c.data(); data != nil {
		p.Data.Value, p.Data.Present = data, true
	} else {
		p.Content.Value, p.Content.Present = c.content, true
		p.Priority.Value, p.Priority.Present = c.priority, true
	}
	return p
}

// newBody is the body of the single-record create (the fallback for one refused change).
func newBody(w write) dns.RecordNewParamsBody {
	c, _ := contentOf(w.typ, w.target)
	var b dns.RecordNewParamsBody
	b.Name.Value, b.Name.Present = w.name, true
	b.TTL.Value, b.TTL.Present = dns.TTL(w.ttl), true
	b.Type.Value, b.Type.Present = dns.RecordNewParamsBodyType(w.typ), true
	b.Proxied.Value, b.Proxied.Present = w.proxied, true
	b.Comment.Value, b.Comment.Present = w.comment, true
	b.Tags.Value, b.Tags.Present = w.tags, true
	if data := c.data(); data != nil {
		b.Data.Value, b.Data.Present = data, true
	} else {
		b.Content.Value, b.Content.Present = c.content, true
		b.Priority.Value, b.Priority.Present = c.priority, true
	}
	return b
}

// updateBody is the body of the single-record update.
func updateBody(w write) dns.RecordUpdateParamsBody {
	c, _ := contentOf(w.typ, w.target)
	var b dns.RecordUpdateParamsBody
	b.Name.Value, b.Name.Present = w.name, true
	b.TTL.Value, b.TTL.Present = dns.TTL(w.ttl), true
	b.Type.Value, b.Type.Present = dns.RecordUpdateParamsBodyType(w.typ), true
	b.Proxied.Value, b.Proxied.Present = w.proxied, true
	b.Comment.Value, b.Comment.Present = w.comment, true
	b.Tags.Value, b.Tags.Present = w.tags, true
	if data := c.data(); data != nil {
		b.Data.Value, b.Data.Present = data, true
	} else {
		b.Content.Value, b.Content.Present = c.content, true
		b.Priority.Value, b.Priority.Present = c.priority, true
	}
	return b
}

// putParam is the batch "puts" entry that overwrites record id with w. The batch takes a typed
// entry per record type.
func putParam(id string, w write) dns.BatchPutUnionParam {
	c, _ := contentOf(w.typ, w.target)
	// The fields every typed entry shares, set once on the A entry and copied to the others (their
	// types are the SDK's, named only through its structs).
	var a dns.ARecordParam
	a.Name.Value, a.Name.Present = w.name, true
	a.TTL.Value, a.TTL.Present = dns.TTL(w.ttl), true
	a.Content.Value, a.Content.Present = c.content, true
	a.Proxied.Value, a.Proxied.Present = w.proxied, true
	a.Comment.Value, a.Comment.Present = w.comment, true
	a.Tags.Value, a.Tags.Present = w.tags, true
	name, ttl, body, proxied, comment, tags := a.Name, a.TTL, a.Content, a.Proxied, a.Comment, a.Tags
	var put dns.BatchPutARecordParam
	put.ID.Value, put.ID.Present = id, true
	rid := put.ID
	switch w.typ {
	case endpoint.RecordTypeA:
		a.Type.Value, a.Type.Present = dns.ARecordTypeA, true
		return dns.BatchPutARecordParam{ID: rid, ARecordParam: a}
	case endpoint.RecordTypeAAAA:
		r := dns.AAAARecordParam{Name: name, TTL: ttl, Content: body, Proxied: proxied, Comment: comment, Tags: tags}
		r.Type.Value, r.Type.Present = dns.AAAARecordTypeAAAA, true
		return dns.BatchPutAAAARecordParam{ID: rid, AAAARecordParam: r}
	case endpoint.RecordTypeCNAME:
		r := dns.CNAMERecordParam{Name: name, TTL: ttl, Content: body, Proxied: proxied, Comment: comment, Tags: tags}
		r.Type.Value, r.Type.Present = dns.CNAMERecordTypeCNAME, true
		return dns.BatchPutCNAMERecordParam{ID: rid, CNAMERecordParam: r}
	case endpoint.RecordTypeTXT:
		r := dns.TXTRecordParam{Name: name, TTL: ttl, Content: body, Proxied: proxied, Comment: comment, Tags: tags}
		r.Type.Value, r.Type.Present = dns.TXTRecordTypeTXT, true
		return dns.BatchPutTXTRecordParam{ID: rid, TXTRecordParam: r}
	case endpoint.RecordTypeMX:
		r := dns.MXRecordParam{Name: name, TTL: ttl, Content: body, Proxied: proxied, Comment: comment, Tags: tags}
		r.Type.Value, r.Type.Present = dns.MXRecordTypeMX, true
		r.Priority.Value, r.Priority.Present = c.priority, true
		return dns.BatchPutMXRecordParam{ID: rid, MXRecordParam: r}
	case endpoint.RecordTypeNS:
		r := dns.NSRecordParam{Name: name, TTL: ttl, Content: body, Proxied: proxied, Comment: comment, Tags: tags}
		r.Type.Value, r.Type.Present = dns.NSRecordTypeNS, true
		return dns.BatchPutNSRecordParam{ID: rid, NSRecordParam: r}
	case endpoint.RecordTypeTLSA:
		r := dns.TLSARecordParam{Name: name, TTL: ttl, Proxied: proxied, Comment: comment, Tags: tags}
		r.Type.Value, r.Type.Present = dns.TLSARecordTypeTLSA, true
		if c.tlsa != nil {
			r.Data.Value = *c.tlsa
		}
		r.Data.Present = true
		return dns.BatchPutTLSARecordParam{ID: rid, TLSARecordParam: r}
	}
	// SRV, the one type of recordTypes left.
	r := dns.SRVRecordParam{Name: name, TTL: ttl, Proxied: proxied, Comment: comment, Tags: tags}
	r.Type.Value, r.Type.Present = dns.SRVRecordTypeSRV, true
	if c.srv != nil {
		r.Data.Value = *c.srv
	}
	r.Data.Present = true
	return dns.BatchPutSRVRecordParam{ID: rid, SRVRecordParam: r}
}
