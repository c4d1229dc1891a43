package coredns

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

// expectSets checks that Records returns exactly want (names, types, TTLs, targets as sets, group).
func expectSets(t *testing.T, p *Provider, want ...*endpoint.Endpoint) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got, err := p.Records(ctx)
	if err != nil {
		t.Fatalf("Records: %v", err)
	}
	render := func(eps []*endpoint.Endpoint) string {
		var lines []string
		for _, e := range eps {
			ts := append([]string(nil), e.Targets...)
			sort.Strings(ts)
			g, _ := e.GetProviderSpecific(GroupProperty)
			lines = append(lines, e.DNSName+" "+e.RecordType+" "+itoa(int64(e.RecordTTL))+" "+strings.Join(ts, ",")+" group="+g)
		}
		sort.Strings(lines)
		return strings.Join(lines, "\n")
	}
	if g, w := render(got), render(want); g != w {
		t.Fatalf("Records:\n%s\nwant:\n%s", g, w)
	}
}

func itoa(n int64) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// TestReadsExternalDNSLayout reads keys exactly as external-dns writes them (random 8-hex ids, A and
// TXT sharing a value, registry TXT values with quotes, AAAA, CNAME, a group), then changes them and
// checks that the result is served and that nothing of the old layout is left behind.
func TestReadsExternalDNSLayout(t *testing.T) {
	b := newBed(t, startEtcd(t), true, "example.com")
	owner := `"heritage=external-dns,external-dns/owner=default,external-dns/resource=ingress/default/web"`
	b.put(t, "com/example/www/1a2b3c4d", `{"host":"1.2.3.4","ttl":300,"targetstrip":1}`)
	b.put(t, "com/example/www/5e6f7a8b", `{"host":"1.2.3.5","ttl":300,"targetstrip":1}`)
	b.put(t, "com/example/a-www/0badcafe", `{"text":"`+strings.ReplaceAll(owner, `"`, `\"`)+`","ttl":300,"targetstrip":1}`)
	b.put(t, "com/example/v6/3c4d5e6f", `{"host":"2001:db8::1","ttl":120,"targetstrip":1}`)
	b.put(t, "com/example/app/7f000001", `{"host":"lb.example.net","ttl":60,"targetstrip":1,"group":"blue"}`)
	// Older external-dns: a TXT beside an A in the same batch went into the same value.
	b.put(t, "com/example/mixed/2468ace0", `{"host":"10.9.9.9","text":"`+strings.ReplaceAll(owner, `"`, `\"`)+`","ttl":300,"targetstrip":1}`)
	// Another tool's key without a record id (targetstrip 0): the key is the name itself.
	b.put(t, "com/example/bare", `{"host":"10.8.8.8"}`)
	// Unknown fields (external-dns's owner) are ignored; undecodable values are skipped.
	b.put(t, "com/example/owned/11111111", `{"host":"10.7.7.7","ttl":300,"targetstrip":1,"owner":"cluster-a"}`)
	b.put(t, "com/example/broken/22222222", `not json`)

	www := endpoint.NewWithTTL("www.example.com", endpoint.RecordTypeA, 300, "1.2.3.4", "1.2.3.5")
	ownTXT := endpoint.NewWithTTL("a-www.example.com", endpoint.RecordTypeTXT, 300, owner)
	v6 := endpoint.NewWithTTL("v6.example.com", endpoint.RecordTypeAAAA, 120, "2001:db8::1")
	app := endpoint.NewWithTTL("app.example.com", endpoint.RecordTypeCNAME, 60, "lb.example.net").WithProviderSpecific(GroupProperty, "blue")
	mixedA := endpoint.NewWithTTL("mixed.example.com", endpoint.RecordTypeA, 300, "10.9.9.9")
	mixedTXT := endpoint.NewWithTTL("mixed.example.com", endpoint.RecordTypeTXT, 300, owner)
	bare := endpoint.NewWithTTL("bare.example.com", endpoint.RecordTypeA, 0, "10.8.8.8")
	owned := endpoint.NewWithTTL("owned.example.com", endpoint.RecordTypeA, 300, "10.7.7.7")
	expectSets(t, b.provider, www, ownTXT, v6, app, mixedA, mixedTXT, bare, owned)

	txt := answersOf(b.query(t, "a-www.example.com", dns.TypeTXT), dns.TypeTXT)
	if len(txt) != 1 || strings.Join(txt[0].(*dns.TXT).Txt, "") != strings.ReplaceAll(owner, `"`, `\"`) {
		t.Fatalf("TXT with quotes answered %v", txt)
	}

	// Idempotent: writing back what was read changes no key.
	before := b.dump(t)
	all := []*endpoint.Endpoint{www, ownTXT, v6, app, mixedA, mixedTXT, bare, owned}
	applyOK(t, b.provider, &plan.Changes{UpdateOld: all, UpdateNew: all})
	expectSets(t, b.provider, all...)
	after := b.dump(t)
	// Sets zonekeeper rewrites move to stable ids, but in one transaction per name; re-applying again
	// must then be a no-op.
	applyOK(t, b.provider, &plan.Changes{UpdateOld: all, UpdateNew: all})
	if again := b.dump(t); !sameMap(after, again) {
		t.Fatalf("second re-apply changed keys:\n%v\n%v", after, again)
	}
	if _, ok := after["com/example/broken/22222222"]; !ok || len(before) == 0 {
		t.Fatalf("an undecodable value of another tool was removed")
	}

	// Change www and split the mixed entry: only the A part goes, the TXT stays.
	www2 := endpoint.NewWithTTL("www.example.com", endpoint.RecordTypeA, 300, "1.2.3.4", "1.2.3.6")
	applyOK(t, b.provider, &plan.Changes{
		UpdateOld: []*endpoint.Endpoint{www}, UpdateNew: []*endpoint.Endpoint{www2},
		Delete: []*endpoint.Endpoint{mixedA},
	})
	expectSets(t, b.provider, www2, ownTXT, v6, app, mixedTXT, bare, owned)
	dump := b.dump(t)
	for _, k := range []string{"com/example/www/1a2b3c4d", "com/example/www/5e6f7a8b", "com/example/mixed/2468ace0"} {
		if _, ok := dump[k]; ok {
			t.Errorf("old external-dns key %s left behind", k)
		}
	}
	got := map[string]bool{}
	for _, rr := range answersOf(b.query(t, "www.example.com", dns.TypeA), dns.TypeA) {
		got[rr.(*dns.A).A.String()] = true
	}
	if len(got) != 2 || !got["1.2.3.4"] || !got["1.2.3.6"] {
		t.Fatalf("www answered %v", got)
	}
	if a := answersOf(b.query(t, "mixed.example.com", dns.TypeA), dns.TypeA); len(a) != 0 {
		t.Fatalf("mixed still answers A: %v", a)
	}
	if tx := answersOf(b.query(t, "mixed.example.com", dns.TypeTXT), dns.TypeTXT); len(tx) != 1 {
		t.Fatalf("mixed lost its TXT: %v", tx)
	}
}

// TestWrittenLayout pins the exact keys and values zonekeeper writes.
func TestWrittenLayout(t *testing.T) {
	b := newBed(t, startEtcd(t), false, "example.com")
	applyOK(t, b.provider, &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.NewWithTTL("www.example.com", endpoint.RecordTypeA, 300, "1.2.3.4"),
		endpoint.NewWithTTL("www.example.com", endpoint.RecordTypeTXT, 0, `"a b"`),
		endpoint.NewWithTTL("app.example.com", endpoint.RecordTypeCNAME, 60, "lb.example.net.").WithProviderSpecific(GroupProperty, "g1"),
	}})
	want := map[string]string{
		"com/example/www/" + recordID("A", "1.2.3.4"):            `{"host":"1.2.3.4","ttl":300,"targetstrip":1}`,
		"com/example/www/" + recordID("TXT", `"a b"`):            `{"text":"\"a b\"","targetstrip":1}`,
		"com/example/app/" + recordID("CNAME", "lb.example.net"): `{"host":"lb.example.net","ttl":60,"targetstrip":1,"group":"g1"}`,
	}
	if got := b.dump(t); !sameMap(got, want) {
		t.Fatalf("etcd holds\n%v\nwant\n%v", got, want)
	}
	if id := recordID("A", "1.2.3.4"); len(id) != 8 {
		t.Fatalf("record id %q is not 8 hex digits", id)
	}
}

// TestDeleteIsExactKey checks that deleting www does not touch www1 or names below www.
func TestDeleteIsExactKey(t *testing.T) {
	b := newBed(t, startEtcd(t), true, "example.com")
	www := endpoint.NewWithTTL("www.example.com", endpoint.RecordTypeA, 300, "10.0.0.1")
	www1 := endpoint.NewWithTTL("www1.example.com", endpoint.RecordTypeA, 300, "10.0.0.2")
	sub := endpoint.NewWithTTL("x.www.example.com", endpoint.RecordTypeA, 300, "10.0.0.3")
	applyOK(t, b.provider, &plan.Changes{Create: []*endpoint.Endpoint{www, www1, sub}})
	// Keys another tool wrote without a record id, right at the name: one more target of www, and
	// www1x, whose key starts with www's.
	b.put(t, "com/example/www", `{"host":"10.0.0.5"}`)
	b.put(t, "com/example/www1x", `{"host":"10.0.0.4"}`)
	www.Targets = append(www.Targets, "10.0.0.5")
	applyOK(t, b.provider, &plan.Changes{Delete: []*endpoint.Endpoint{www}})
	if _, left := b.dump(t)["com/example/www"]; left {
		t.Fatalf("the id-less key of www was not deleted")
	}
	expectSets(t, b.provider, www1, sub, endpoint.NewWithTTL("www1x.example.com", endpoint.RecordTypeA, 0, "10.0.0.4"))
	if a := answersOf(b.query(t, "www1.example.com", dns.TypeA), dns.TypeA); len(a) != 1 {
		t.Fatalf("www1 answered %v", a)
	}
}

func sameMap(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
