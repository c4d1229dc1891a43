package googlednsemu

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	dns "google.golang.org/api/dns/v1"
)

func (e *env) create(c *dns.Change) error {
	_, err := e.svc.Changes.Create(testProject, "public-zone", c).Do()
	return err
}

func (e *env) zoneDump(t *testing.T, name string) map[string]RRSetDump {
	t.Helper()
	out := map[string]RRSetDump{}
	for _, d := range e.emu.Dump() {
		if d.Name == name {
			for _, r := range d.RRSets {
				out[r.Name+" "+r.Type] = r
			}
		}
	}
	return out
}

// TestChangeIsAtomic: a change whose last item fails leaves the zone as it
// was; deletions apply before additions, so replacing a set in one change
// works, and adding the same set twice fails on the second.
func TestChangeIsAtomic(t *testing.T) {
	e := newEnv(t, Options{})
	e.seedStandard(t)
	before := e.zoneDump(t, "public-zone")
	err := e.create(&dns.Change{
		Additions: []*dns.ResourceRecordSet{rrs("new.example.com.", "A", 300, "192.0.2.5")},
		Deletions: []*dns.ResourceRecordSet{rrs("www.example.com.", "A", 300, "192.0.2.1", "192.0.2.2"), rrs("www.example.com.", "TXT", 300, `"x"`)},
	})
	ge := apiErr(t, err, http.StatusNotFound, "notFound")
	if !strings.Contains(ge.Message, "deletions[1]") {
		t.Errorf("message %q does not name deletions[1]", ge.Message)
	}
	if after := e.zoneDump(t, "public-zone"); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("a refused change altered the zone:\n%v\n%v", before, after)
	}
	// Additions listed before deletions in the body still apply after them.
	if err := e.create(&dns.Change{
		Additions: []*dns.ResourceRecordSet{rrs("www.example.com.", "A", 60, "192.0.2.9")},
		Deletions: []*dns.ResourceRecordSet{rrs("www.example.com.", "A", 300, "192.0.2.2", "192.0.2.1")},
	}); err != nil {
		t.Fatal(err)
	}
	if got := e.zoneDump(t, "public-zone")["www.example.com. A"]; got.TTL != 60 || len(got.Rrdatas) != 1 {
		t.Fatalf("replaced set %+v", got)
	}
	err = e.create(&dns.Change{Additions: []*dns.ResourceRecordSet{
		rrs("twice.example.com.", "A", 60, "192.0.2.1"), rrs("twice.example.com.", "A", 60, "192.0.2.2")}})
	if ge := apiErr(t, err, http.StatusConflict, "alreadyExists"); !strings.Contains(ge.Message, "additions[1]") || !strings.Contains(ge.Message, "twice.example.com. (A)") {
		t.Errorf("409 message %q", ge.Message)
	}
	if _, ok := e.zoneDump(t, "public-zone")["twice.example.com. A"]; ok {
		t.Fatal("the first of two conflicting additions was applied")
	}
}

// TestDeletionMustMatchExactly: ttl and every rrdata must match (order does
// not matter), else 412 conditionNotMet naming the item.
func TestDeletionMustMatchExactly(t *testing.T) {
	e := newEnv(t, Options{})
	e.seedStandard(t)
	for _, d := range []*dns.ResourceRecordSet{
		rrs("www.example.com.", "A", 301, "192.0.2.1", "192.0.2.2"),
		rrs("www.example.com.", "A", 300, "192.0.2.1"),
		rrs("www.example.com.", "A", 300, "192.0.2.1", "192.0.2.2", "192.0.2.3"),
		rrs("www.example.com.", "A", 300, "192.0.2.1", "192.0.2.9"),
	} {
		ge := apiErr(t, e.create(&dns.Change{Deletions: []*dns.ResourceRecordSet{d}}), http.StatusPreconditionFailed, "conditionNotMet")
		if !strings.Contains(ge.Message, "entity.change.deletions[0]") {
			t.Errorf("412 message %q does not name the item", ge.Message)
		}
	}
	if err := e.create(&dns.Change{Deletions: []*dns.ResourceRecordSet{rrs("WWW.example.com.", "a", 300, "192.0.2.2", "192.0.2.1")}}); err != nil {
		t.Fatalf("exact deletion (rrdatas in another order, name and type in other case): %v", err)
	}
}

// TestChangeValidation: each bad change is refused with 400 (or 403 over a
// documented limit) and a message naming the item and field.
func TestChangeValidation(t *testing.T) {
	e := newEnv(t, Options{})
	e.seedStandard(t)
	many := make([]*dns.ResourceRecordSet, 1001)
	for i := range many {
		many[i] = rrs(fmt.Sprintf("h%d.example.com.", i), "A", 60, "192.0.2.1")
	}
	for _, c := range []struct {
		name   string
		change *dns.Change
		code   int
		reason string
		want   string
	}{
		{"outside the zone", &dns.Change{Additions: []*dns.ResourceRecordSet{rrs("www.example.org.", "A", 60, "192.0.2.1")}}, 400, "invalid", "additions[0].name"},
		{"no trailing dot", &dns.Change{Additions: []*dns.ResourceRecordSet{rrs("x.example.com", "A", 60, "192.0.2.1")}}, 400, "invalid", "fully qualified"},
		{"bad IPv4", &dns.Change{Additions: []*dns.ResourceRecordSet{rrs("x.example.com.", "A", 60, "2001:db8::1")}}, 400, "invalid", "rrdata[0]"},
		{"unknown type", &dns.Change{Additions: []*dns.ResourceRecordSet{rrs("x.example.com.", "ALIASX", 60, "y.")}}, 400, "invalid", ".type"},
		{"CNAME target not fully qualified", &dns.Change{Additions: []*dns.ResourceRecordSet{rrs("x.example.com.", "CNAME", 60, "y.example.com")}}, 400, "invalid", "fully qualified"},
		{"CNAME beside A", &dns.Change{Additions: []*dns.ResourceRecordSet{rrs("www.example.com.", "CNAME", 60, "y.example.com.")}}, 400, "invalid", "CNAME"},
		{"CNAME at apex", &dns.Change{Additions: []*dns.ResourceRecordSet{rrs("example.com.", "CNAME", 60, "y.example.com.")}}, 400, "invalid", "apex"},
		{"no rrdatas", &dns.Change{Additions: []*dns.ResourceRecordSet{rrs("x.example.com.", "A", 60)}}, 400, "required", "rrdata"},
		{"duplicate rrdata", &dns.Change{Additions: []*dns.ResourceRecordSet{rrs("x.example.com.", "A", 60, "192.0.2.1", "192.0.2.1")}}, 400, "invalid", "duplicate"},
		{"MX without preference", &dns.Change{Additions: []*dns.ResourceRecordSet{rrs("x.example.com.", "MX", 60, "mx.example.net.")}}, 400, "invalid", "preference"},
		{"empty change", &dns.Change{}, 400, "required", "at least one"},
		{"apex SOA deleted", &dns.Change{Deletions: []*dns.ResourceRecordSet{rrs("example.com.", "SOA", 21600, soaOf(t, e))}}, 400, "invalid", "SOA"},
		{"over 1,000 additions", &dns.Change{Additions: many}, 403, "quotaExceeded", "1000 additions"},
	} {
		ge := apiErr(t, e.create(c.change), c.code, c.reason)
		if !strings.Contains(ge.Message, c.want) {
			t.Errorf("%s: message %q does not contain %q", c.name, ge.Message, c.want)
		}
	}
	// Peering zones are read-only.
	_, err := e.svc.Changes.Create(testProject, "peering-zone", &dns.Change{Additions: []*dns.ResourceRecordSet{rrs("x.peer.example.", "A", 60, "10.0.0.1")}}).Do()
	if ge := apiErr(t, err, 400, "invalid"); !strings.Contains(ge.Message, "peering") {
		t.Errorf("peering: %q", ge.Message)
	}
	// A body field the schema does not have is refused by name.
	token := e.emu.IssueToken()
	status, env := call(t, e.srv.URL, "POST", "/dns/v1/projects/"+testProject+"/managedZones/public-zone/changes", token,
		`{"additions":[{"name":"x.example.com.","type":"A","ttl":60,"rrdatas":["192.0.2.1"],"weight":3}]}`)
	if status != 400 || !strings.Contains(env.Error.Message, `"weight"`) {
		t.Errorf("unknown field: %d %+v", status, env.Error)
	}
}

func soaOf(t *testing.T, e *env) string {
	t.Helper()
	return e.zoneDump(t, "public-zone")["example.com. SOA"].Rrdatas[0]
}

// TestReadOnlyScopeCannotWrite: a token with the read-only scope lists but
// gets 403 insufficientPermissions on changes.create.
func TestReadOnlyScopeCannotWrite(t *testing.T) {
	e := newEnv(t, Options{}, dns.NdevClouddnsReadonlyScope)
	e.seedStandard(t)
	if _, err := e.svc.ManagedZones.List(testProject).Do(); err != nil {
		t.Fatal(err)
	}
	apiErr(t, e.create(&dns.Change{Additions: []*dns.ResourceRecordSet{rrs("x.example.com.", "A", 60, "192.0.2.1")}}), http.StatusForbidden, "insufficientPermissions")
}
