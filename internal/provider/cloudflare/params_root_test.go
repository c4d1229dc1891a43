package cloudflare

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	cf "github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/custom_hostnames"
	"github.com/cloudflare/cloudflare-go/v7/dns"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// The request bodies are built field by field since the provider stopped importing the SDK's root
// package (and its cf.F helper) to keep its ~120 unused services out of the binary. This test keeps
// the bodies as they were: the functions below are write.go as it was before that (at e4a7db1), renamed
// with a "Root" suffix, and each body must marshal to the same JSON.
func TestBodiesMatchTheRootHelpers(t *testing.T) {
	attrSets := []attrs{{}, {proxied: true, comment: "c", tags: []string{"a:b", "c:d"}}}
	targets := map[string][]string{
		endpoint.RecordTypeA: {"192.0.2.1"}, endpoint.RecordTypeAAAA: {"2001:db8::1"},
		endpoint.RecordTypeCNAME: {"target.example.com"}, endpoint.RecordTypeTXT: {"\"heritage=x\""},
		endpoint.RecordTypeMX: {"10 mail.example.com"}, endpoint.RecordTypeNS: {"ns1.example.com"},
		endpoint.RecordTypeSRV:  {"1 2 3 sip.example.com.", "0 0 0 ."},
		endpoint.RecordTypeTLSA: {"3 1 1 ABCDEF0123"},
	}
	n := 0
	for typ, ts := range targets {
		for _, target := range ts {
			for _, a := range attrSets {
				w := write{name: "x.example.com", typ: typ, target: target, ttl: 300, attrs: a}
				for _, c := range []struct {
					what      string
					got, want any
				}{
					{"post", postParam(w), postParamRoot(w)},
					{"new", newBody(w), newBodyRoot(w)},
					{"update", updateBody(w), updateBodyRoot(w)},
					{"put", putParam("id1", w), putParamRoot("id1", w)},
				} {
					got, err := json.Marshal(c.got)
					if err != nil {
						t.Fatalf("%s %s %q: %v", c.what, typ, target, err)
					}
					want, err := json.Marshal(c.want)
					if err != nil {
						t.Fatalf("%s %s %q (root): %v", c.what, typ, target, err)
					}
					if string(got) != string(want) {
						t.Errorf("%s %s %q %+v:\n got %s\nwant %s", c.what, typ, target, a, got, want)
					}
					n++
				}
			}
		}
	}
	if n != 4*9*2 {
		t.Fatalf("compared %d bodies, want %d", n, 4*9*2)
	}
}

// A new custom hostname's body, with and without a certificate authority, is as it was too.
func TestCustomHostnameBodyMatchesTheRootHelpers(t *testing.T) {
	for _, cfg := range []Config{
		{CustomHostnamesMinTLSVersion: "1.0", CustomHostnamesCertificateAuthority: "none"},
		{CustomHostnamesMinTLSVersion: "1.2", CustomHostnamesCertificateAuthority: "google"},
		{CustomHostnamesMinTLSVersion: "1.3"},
	} {
		p := &Provider{cfg: cfg}
		z := zone{id: "z1", name: "example.com"}
		got, err := json.Marshal(p.customParams(z, "shop.example.com"))
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(customParamsRoot(cfg, z, "shop.example.com"))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%+v:\n got %s\nwant %s", cfg, got, want)
		}
	}
}

// customParamsRoot is Provider.customParams before (customhostnames.go at e4a7db1).
func customParamsRoot(cfg Config, z zone, hostname string) custom_hostnames.CustomHostnameNewParams {
	ssl := custom_hostnames.CustomHostnameNewParamsSSL{
		Method:       cf.F(custom_hostnames.DCVMethodHTTP),
		Type:         cf.F(custom_hostnames.DomainValidationTypeDv),
		BundleMethod: cf.F(custom_hostnames.BundleMethodUbiquitous),
		Settings: cf.F(custom_hostnames.CustomHostnameNewParamsSSLSettings{
			MinTLSVersion: cf.F(custom_hostnames.CustomHostnameNewParamsSSLSettingsMinTLSVersion(cfg.CustomHostnamesMinTLSVersion)),
		}),
	}
	if ca := cfg.CustomHostnamesCertificateAuthority; ca != "" && ca != "none" {
		ssl.CertificateAuthority = cf.F(cf.CertificateCA(ca))
	}
	return custom_hostnames.CustomHostnameNewParams{ZoneID: cf.F(z.id), Hostname: cf.F(hostname), SSL: cf.F(ssl)}
}

// The functions below are write.go's before (at e4a7db1).

func contentOfRoot(typ, target string) (content, error) {
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
func postParamRoot(w write) dns.RecordBatchParamsPostUnion {
	c, _ := contentOfRoot(w.typ, w.target)
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
func newBodyRoot(w write) dns.RecordNewParamsBody {
	c, _ := contentOfRoot(w.typ, w.target)
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
func updateBodyRoot(w write) dns.RecordUpdateParamsBody {
	c, _ := contentOfRoot(w.typ, w.target)
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
func putParamRoot(id string, w write) dns.BatchPutUnionParam {
	c, _ := contentOfRoot(w.typ, w.target)
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
