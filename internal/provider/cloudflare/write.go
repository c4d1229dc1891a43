package cloudflare

import (
	"fmt"
	"strconv"
	"strings"

	cf "github.com/cloudflare/cloudflare-go/v7"
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
		return content{srv: &dns.SRVRecordDataParam{
			Priority: cf.F(float64(n[0])), Weight: cf.F(float64(n[1])), Port: cf.F(float64(n[2])), Target: cf.F(host),
		}}, nil
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
		return content{tlsa: &dns.TLSARecordDataParam{
			Usage: cf.F(float64(n[0])), Selector: cf.F(float64(n[1])), MatchingType: cf.F(float64(n[2])), Certificate: cf.F(strings.ToLower(f[3])),
		}}, nil
	}
	return content{content: target}, nil
}

// postParam is the batch "posts" entry that creates w (checked by contentOf before).
func postParam(w write) dns.RecordBatchParamsPostUnion {
	c, _ := contentOf(w.typ, w.target)
	p := dns.RecordBatchParamsPost{
		Name: cf.F(w.name), TTL: cf.F(dns.TTL(w.ttl)), Type: cf.F(dns.RecordBatchParamsPostsType(w.typ)),
		Proxied: cf.F(w.proxied), Comment: cf.F(w.comment), Tags: cf.F[any](w.tags),
	}
	if data := c.data(); data != nil {
		p.Data = cf.F(data)
	} else {
		p.Content, p.Priority = cf.F(c.content), cf.F(c.priority)
	}
	return p
}

// newBody is the body of the single-record create (the fallback for one refused change).
func newBody(w write) dns.RecordNewParamsBody {
	c, _ := contentOf(w.typ, w.target)
	b := dns.RecordNewParamsBody{
		Name: cf.F(w.name), TTL: cf.F(dns.TTL(w.ttl)), Type: cf.F(dns.RecordNewParamsBodyType(w.typ)),
		Proxied: cf.F(w.proxied), Comment: cf.F(w.comment), Tags: cf.F[any](w.tags),
	}
	if data := c.data(); data != nil {
		b.Data = cf.F(data)
	} else {
		b.Content, b.Priority = cf.F(c.content), cf.F(c.priority)
	}
	return b
}

// updateBody is the body of the single-record update.
func updateBody(w write) dns.RecordUpdateParamsBody {
	c, _ := contentOf(w.typ, w.target)
	b := dns.RecordUpdateParamsBody{
		Name: cf.F(w.name), TTL: cf.F(dns.TTL(w.ttl)), Type: cf.F(dns.RecordUpdateParamsBodyType(w.typ)),
		Proxied: cf.F(w.proxied), Comment: cf.F(w.comment), Tags: cf.F[any](w.tags),
	}
	if data := c.data(); data != nil {
		b.Data = cf.F(data)
	} else {
		b.Content, b.Priority = cf.F(c.content), cf.F(c.priority)
	}
	return b
}

// putParam is the batch "puts" entry that overwrites record id with w. The batch takes a typed
// entry per record type.
func putParam(id string, w write) dns.BatchPutUnionParam {
	c, _ := contentOf(w.typ, w.target)
	name, ttl, comment, tags := cf.F(w.name), cf.F(dns.TTL(w.ttl)), cf.F(w.comment), cf.F(w.tags)
	proxied, body, rid := cf.F(w.proxied), cf.F(c.content), cf.F(id)
	switch w.typ {
	case endpoint.RecordTypeA:
		return dns.BatchPutARecordParam{ID: rid, ARecordParam: dns.ARecordParam{Name: name, TTL: ttl,
			Type: cf.F(dns.ARecordTypeA), Content: body, Proxied: proxied, Comment: comment, Tags: tags}}
	case endpoint.RecordTypeAAAA:
		return dns.BatchPutAAAARecordParam{ID: rid, AAAARecordParam: dns.AAAARecordParam{Name: name, TTL: ttl,
			Type: cf.F(dns.AAAARecordTypeAAAA), Content: body, Proxied: proxied, Comment: comment, Tags: tags}}
	case endpoint.RecordTypeCNAME:
		return dns.BatchPutCNAMERecordParam{ID: rid, CNAMERecordParam: dns.CNAMERecordParam{Name: name, TTL: ttl,
			Type: cf.F(dns.CNAMERecordTypeCNAME), Content: body, Proxied: proxied, Comment: comment, Tags: tags}}
	case endpoint.RecordTypeTXT:
		return dns.BatchPutTXTRecordParam{ID: rid, TXTRecordParam: dns.TXTRecordParam{Name: name, TTL: ttl,
			Type: cf.F(dns.TXTRecordTypeTXT), Content: body, Proxied: proxied, Comment: comment, Tags: tags}}
	case endpoint.RecordTypeMX:
		return dns.BatchPutMXRecordParam{ID: rid, MXRecordParam: dns.MXRecordParam{Name: name, TTL: ttl,
			Type: cf.F(dns.MXRecordTypeMX), Content: body, Priority: cf.F(c.priority), Proxied: proxied, Comment: comment, Tags: tags}}
	case endpoint.RecordTypeNS:
		return dns.BatchPutNSRecordParam{ID: rid, NSRecordParam: dns.NSRecordParam{Name: name, TTL: ttl,
			Type: cf.F(dns.NSRecordTypeNS), Content: body, Proxied: proxied, Comment: comment, Tags: tags}}
	case endpoint.RecordTypeTLSA:
		var data dns.TLSARecordDataParam
		if c.tlsa != nil {
			data = *c.tlsa
		}
		return dns.BatchPutTLSARecordParam{ID: rid, TLSARecordParam: dns.TLSARecordParam{Name: name, TTL: ttl,
			Type: cf.F(dns.TLSARecordTypeTLSA), Data: cf.F(data), Proxied: proxied, Comment: comment, Tags: tags}}
	}
	// SRV, the one type of recordTypes left.
	var data dns.SRVRecordDataParam
	if c.srv != nil {
		data = *c.srv
	}
	return dns.BatchPutSRVRecordParam{ID: rid, SRVRecordParam: dns.SRVRecordParam{Name: name, TTL: ttl,
		Type: cf.F(dns.SRVRecordTypeSRV), Data: cf.F(data), Proxied: proxied, Comment: comment, Tags: tags}}
}
