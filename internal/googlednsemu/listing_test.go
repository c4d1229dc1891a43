package googlednsemu

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	dns "google.golang.org/api/dns/v1"
)

// TestRRSetPaging: pages of maxResults, tokens that continue exactly where
// the last page ended (also across a write between pages), no token on the
// last page, the server's page size without maxResults.
func TestRRSetPaging(t *testing.T) {
	e := newEnv(t, Options{PageSize: 4})
	e.seedStandard(t)
	var add []*dns.ResourceRecordSet
	for i := range 9 {
		add = append(add, rrs(fmt.Sprintf("h%d.example.com.", i), "A", 60, "192.0.2.1"))
	}
	if err := e.create(&dns.Change{Additions: add}); err != nil {
		t.Fatal(err)
	}
	// 12 sets: NS, SOA, www A and h0..h8.
	call := e.svc.ResourceRecordSets.List(testProject, "public-zone")
	p1, err := call.MaxResults(5).Do()
	if err != nil || len(p1.Rrsets) != 5 || p1.NextPageToken == "" {
		t.Fatalf("page 1: %d sets, token %q (%v)", len(p1.Rrsets), p1.NextPageToken, err)
	}
	// A set added before the cursor between pages is not seen; one after is.
	if err := e.create(&dns.Change{Additions: []*dns.ResourceRecordSet{rrs("a0.example.com.", "A", 60, "192.0.2.1"), rrs("zz.example.com.", "A", 60, "192.0.2.1")}}); err != nil {
		t.Fatal(err)
	}
	p2, err := e.svc.ResourceRecordSets.List(testProject, "public-zone").MaxResults(5).PageToken(p1.NextPageToken).Do()
	if err != nil || len(p2.Rrsets) != 5 || p2.Rrsets[0].Name <= p1.Rrsets[4].Name {
		t.Fatalf("page 2: %+v (%v)", p2, err)
	}
	p3, err := e.svc.ResourceRecordSets.List(testProject, "public-zone").MaxResults(5).PageToken(p2.NextPageToken).Do()
	if err != nil || len(p3.Rrsets) != 3 || p3.NextPageToken != "" || p3.Rrsets[2].Name != "zz.example.com." {
		t.Fatalf("page 3: %+v (%v)", p3, err)
	}
	def, err := e.svc.ResourceRecordSets.List(testProject, "public-zone").Do()
	if err != nil || len(def.Rrsets) != 4 || def.NextPageToken == "" {
		t.Fatalf("default page: %d (%v)", len(def.Rrsets), err)
	}
	// A token is tied to the filters of its listing.
	_, err = e.svc.ResourceRecordSets.List(testProject, "public-zone").Name("www.example.com.").PageToken(p1.NextPageToken).Do()
	apiErr(t, err, http.StatusBadRequest, "invalid")
	_, err = e.svc.ResourceRecordSets.List(testProject, "public-zone").MaxResults(MaxPageSize + 1).Do()
	apiErr(t, err, http.StatusBadRequest, "invalid")
}

// TestListFilters: name, name+type, dnsName; type without name and filter
// with name are refused; names are matched without regard to case or the
// trailing dot.
func TestListFilters(t *testing.T) {
	e := newEnv(t, Options{})
	e.seedStandard(t)
	if err := e.create(&dns.Change{Additions: []*dns.ResourceRecordSet{
		rrs("www.example.com.", "TXT", 60, `"v"`), rrs("a.www.example.com.", "A", 60, "192.0.2.7")}}); err != nil {
		t.Fatal(err)
	}
	byName, err := e.svc.ResourceRecordSets.List(testProject, "public-zone").Name("WWW.example.com").Do()
	if err != nil || len(byName.Rrsets) != 2 || byName.Rrsets[0].Type != "A" || byName.Rrsets[1].Type != "TXT" {
		t.Fatalf("name: %+v (%v)", byName, err)
	}
	byType, err := e.svc.ResourceRecordSets.List(testProject, "public-zone").Name("www.example.com.").Type("TXT").Do()
	if err != nil || len(byType.Rrsets) != 1 || byType.Rrsets[0].Rrdatas[0] != `"v"` {
		t.Fatalf("name+type: %+v (%v)", byType, err)
	}
	exact, err := e.svc.ResourceRecordSets.List(testProject, "public-zone").Filter(`name="www.example.com." AND type="A"`).Do()
	if err != nil || len(exact.Rrsets) != 1 || exact.Rrsets[0].Name != "www.example.com." {
		t.Fatalf("filter: %+v (%v)", exact, err)
	}
	suffix, err := e.svc.ResourceRecordSets.List(testProject, "public-zone").Filter(`name=has_suffix("www.example.com.")`).Do()
	if err != nil || len(suffix.Rrsets) != 3 {
		t.Fatalf("has_suffix: %+v (%v)", suffix, err)
	}
	none, err := e.svc.ManagedZones.List(testProject).DnsName("nowhere.example.").Do()
	if err != nil || len(none.ManagedZones) != 0 {
		t.Fatalf("dnsName without match: %+v (%v)", none, err)
	}
	_, err = e.svc.ResourceRecordSets.List(testProject, "public-zone").Type("A").Do()
	apiErr(t, err, http.StatusBadRequest, "invalid")
	_, err = e.svc.ResourceRecordSets.List(testProject, "public-zone").Name("www.example.com.").Filter(`name="www.example.com."`).Do()
	apiErr(t, err, http.StatusBadRequest, "invalid")
	_, err = e.svc.ResourceRecordSets.List(testProject, "public-zone").Filter(`type="A"`).Do()
	apiErr(t, err, http.StatusBadRequest, "invalid")
}

// TestUnknownInputsAreRefused: unknown query parameters, unhonoured
// standard ones, an unknown project, zone or change.
func TestUnknownInputsAreRefused(t *testing.T) {
	e := newEnv(t, Options{})
	e.seedStandard(t)
	token := e.emu.IssueToken()
	base := "/dns/v1/projects/" + testProject + "/managedZones"
	for _, c := range []struct {
		path   string
		status int
		want   string
	}{
		{base + "?sortBy=name", 400, `"sortBy"`},
		{base + "?fields=" + url.QueryEscape("managedZones(name)"), 400, "fields"},
		{base + "/public-zone?clientOperationId=x", 400, "clientOperationId"},
		{"/dns/v1/projects/no-such-project/managedZones", 404, "no-such-project"},
		{base + "/nope/rrsets", 404, "'nope'"},
		{base + "/public-zone/changes/7", 404, "'7'"},
	} {
		status, env := call(t, e.srv.URL, "GET", c.path, token, "")
		if status != c.status || !strings.Contains(env.Error.Message, c.want) {
			t.Errorf("GET %s: %d %q, want %d naming %s", c.path, status, env.Error.Message, c.status, c.want)
		}
	}
}
