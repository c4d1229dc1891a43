package aws

import (
	"testing"
	"unsafe"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

// Issue 15 (memory): a record set written through the provider is cached under the caller's name
// string, not the copy cut from the "name." the change was sent with, so the TXT registry's cache
// (which keeps the names it sent: the sources' hosts, the TXT names it built) and the provider's share
// one string per set (about 30 bytes a set at 20,000 Ingresses). A name that is not normalised (upper
// case, a trailing dot) is cached normalised, as a listing caches it. ListedForm answers with the
// stored name's string, also for a set a listing stored and the caller then updated (fails before
// ListedForm read the stored key: it answered the caller's string).
func TestWrittenSetsKeepTheCallersName(t *testing.T) {
	staticCredentials(t)
	srv, url := emulator(t, route53emu.Options{})
	zs := seed(t, srv, ownedRecords("one.test", "a"))
	p := newProvider(t, url, Config{})
	if _, err := p.Records(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	created := []*endpoint.Endpoint{
		ep("x.one.test", "A", 300, "198.51.100.9"),
		ep("x.one.test", "TXT", 300, `"heritage=external-dns,external-dns/owner=v"`),
		ep("Upper.One.Test.", "A", 300, "198.51.100.10"),
	}
	updated := ep("a.one.test", "A", 300, "198.51.100.11")
	if err := p.ApplyChanges(ctxT(t), &plan.Changes{Create: created,
		UpdateOld: []*endpoint.Endpoint{ep("a.one.test", "A", 300, "192.0.2.1")}, UpdateNew: []*endpoint.Endpoint{updated}}); err != nil {
		t.Fatal(err)
	}
	c := p.contents[zs[0].ID]
	stored := func(e *endpoint.Endpoint) (string, bool) {
		i, ok := c.find(keyOfEndpoint(e))
		if !ok {
			return "", false
		}
		return c.entries[i].name, true
	}
	same := func(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }
	for _, e := range created[:2] {
		if name, ok := stored(e); !ok || !same(name, e.DNSName) {
			t.Errorf("%s %s is cached under %q (found %v), not the caller's string", e.DNSName, e.RecordType, name, ok)
		}
	}
	if name, ok := stored(created[2]); !ok || name != "upper.one.test" {
		t.Errorf("Upper.One.Test. is cached under %q (found %v), want upper.one.test", name, ok)
	}
	// An update keeps the key the listing stored.
	if name, ok := stored(updated); !ok || name != "a.one.test" || same(name, updated.DNSName) {
		t.Errorf("the updated a.one.test is cached under %q (found %v; the caller's string: %v)", name, ok, same(name, updated.DNSName))
	}
	// ListedForm answers with the stored names: for the updated set, the listing's string.
	asked := []*endpoint.Endpoint{created[0], created[1], updated}
	keys := make([]endpoint.Key, len(asked))
	for i, e := range asked {
		keys[i] = ep(e.DNSName, e.RecordType, 0).Key() // a name of the caller's own, as the registry asks
	}
	eps, _ := p.ListedForm(keys)
	for i, e := range eps {
		name, _ := stored(asked[i])
		if e == nil || e.DNSName != asked[i].DNSName || !same(e.DNSName, name) || e.RecordTTL != 300 {
			t.Errorf("ListedForm of %s: %v (the stored name's string: %v)", asked[i].DNSName, e, e != nil && same(e.DNSName, name))
		}
	}
}
