package googlednsemu

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	dns "google.golang.org/api/dns/v1"
)

// TestFidelityThroughTheSDK drives every emulated operation through the
// generated dns/v1 client (token from /token with a service-account key),
// compares what it decoded with what the emulator stores, and checks every
// raw answer against the discovery schema and the SDK types.
func TestFidelityThroughTheSDK(t *testing.T) {
	e := newEnv(t, Options{})
	seeded := e.seedStandard(t)
	ctx := context.Background()

	// managedZones.list, paged one zone at a time.
	var zones []*dns.ManagedZone
	pages := 0
	err := e.svc.ManagedZones.List(testProject).MaxResults(1).Pages(ctx, func(r *dns.ManagedZonesListResponse) error {
		pages++
		zones = append(zones, r.ManagedZones...)
		return nil
	})
	if err != nil || pages != 3 || len(zones) != 3 {
		t.Fatalf("zones: %d pages, %d zones (%v), want 3 and 3", pages, len(zones), err)
	}
	byName := map[string]*dns.ManagedZone{}
	for _, z := range zones {
		byName[z.Name] = z
	}
	ids := map[string]string{}
	for _, s := range seeded {
		ids[s.Name] = s.ID
	}
	pub, priv, peer := byName["public-zone"], byName["private-zone"], byName["peering-zone"]
	if pub == nil || priv == nil || peer == nil {
		t.Fatalf("zones %v", byName)
	}
	if pub.DnsName != "example.com." || pub.Visibility != "public" || pub.PrivateVisibilityConfig != nil || pub.PeeringConfig != nil ||
		pub.Description != "public" || pub.Labels["team"] != "dns" || len(pub.NameServers) != 4 || pub.Kind != "dns#managedZone" ||
		formatID(pub.Id) != ids["public-zone"] || pub.CreationTime == "" {
		t.Errorf("public zone %+v", pub)
	}
	var nets []string
	for _, n := range priv.PrivateVisibilityConfig.Networks {
		nets = append(nets, n.NetworkUrl)
	}
	if priv.Visibility != "private" || len(nets) != 2 || !strings.HasSuffix(nets[1], "/networks/other") || priv.PeeringConfig != nil {
		t.Errorf("private zone %+v networks %v", priv, nets)
	}
	if peer.PeeringConfig == nil || peer.PeeringConfig.TargetNetwork == nil ||
		!strings.Contains(peer.PeeringConfig.TargetNetwork.NetworkUrl, "other-project") || peer.Visibility != "private" {
		t.Errorf("peering zone %+v", peer)
	}

	// managedZones.list with dnsName; managedZones.get by name and by id.
	l, err := e.svc.ManagedZones.List(testProject).DnsName("internal.example.").Do()
	if err != nil || len(l.ManagedZones) != 1 || l.ManagedZones[0].Name != "private-zone" || l.NextPageToken != "" {
		t.Fatalf("dnsName filter: %+v %v", l, err)
	}
	for _, ref := range []string{"public-zone", ids["public-zone"]} {
		z, err := e.svc.ManagedZones.Get(testProject, ref).Do()
		if err != nil || z.Name != "public-zone" || formatID(z.Id) != ids["public-zone"] {
			t.Fatalf("get %s: %+v %v", ref, z, err)
		}
	}

	// changes.create with every common type, then changes.get.
	add := []*dns.ResourceRecordSet{
		rrs("a.example.com.", "A", 60, "192.0.2.10"),
		rrs("a.example.com.", "AAAA", 60, "2001:db8::10"),
		rrs("alias.example.com.", "CNAME", 300, "a.example.com."),
		rrs("a.example.com.", "TXT", 300, `"heritage=external-dns,external-dns/owner=default"`),
		rrs("example.com.", "MX", 3600, "10 mx1.example.net.", "20 mx2.example.net."),
		rrs("_sip._tcp.example.com.", "SRV", 300, "1 2 5060 sip.example.net."),
		rrs("example.com.", "CAA", 300, `0 issue "letsencrypt.org"`),
		rrs("sub.example.com.", "NS", 300, "ns1.example.net.", "ns2.example.net."),
		rrs("*.wild.example.com.", "A", 300, "192.0.2.20"),
	}
	ch, err := e.svc.Changes.Create(testProject, "public-zone", &dns.Change{Additions: add}).Do()
	if err != nil {
		t.Fatal(err)
	}
	if ch.Id != "2" || ch.Status != "pending" || ch.Kind != "dns#change" || len(ch.Additions) != len(add) || ch.StartTime == "" {
		t.Fatalf("change %+v", ch)
	}
	got, err := e.svc.Changes.Get(testProject, "public-zone", ch.Id).Do()
	if err != nil || got.Status != "done" || got.Id != ch.Id || len(got.Additions) != len(add) {
		t.Fatalf("changes.get: %+v %v", got, err)
	}
	// changes.list: the latest change (what a zone probe asks), then every change in pages of two.
	latest, err := e.svc.Changes.List(testProject, "public-zone").SortBy("changeSequence").SortOrder("descending").MaxResults(1).Do()
	if err != nil || len(latest.Changes) != 1 || latest.Changes[0].Id != ch.Id || latest.Changes[0].Status != "done" || latest.NextPageToken == "" {
		t.Fatalf("changes.list descending, maxResults 1: %+v %v", latest, err)
	}
	var seq []string
	if err := e.svc.Changes.List(testProject, "public-zone").MaxResults(2).Pages(context.Background(), func(l *dns.ChangesListResponse) error {
		for _, c := range l.Changes {
			seq = append(seq, c.Id)
		}
		return nil
	}); err != nil || strings.Join(seq, ",") != "0,1,2" {
		t.Fatalf("changes.list ascending in pages: %v %v", seq, err)
	}
	seq = nil
	if err := e.svc.Changes.List(testProject, "public-zone").SortOrder("descending").MaxResults(2).Pages(context.Background(), func(l *dns.ChangesListResponse) error {
		for _, c := range l.Changes {
			seq = append(seq, c.Id)
		}
		return nil
	}); err != nil || strings.Join(seq, ",") != "2,1,0" {
		t.Fatalf("changes.list descending in pages: %v %v", seq, err)
	}
	_, err = e.svc.Changes.List(testProject, "public-zone").SortOrder("sideways").Do()
	apiErr(t, err, http.StatusBadRequest, "invalid")
	// An update is a deletion of the exact set plus an addition.
	upd, err := e.svc.Changes.Create(testProject, "public-zone", &dns.Change{
		Deletions: []*dns.ResourceRecordSet{rrs("www.example.com.", "A", 300, "192.0.2.2", "192.0.2.1")},
		Additions: []*dns.ResourceRecordSet{rrs("www.example.com.", "A", 120, "192.0.2.3")},
	}).Do()
	if err != nil || len(upd.Deletions) != 1 || len(upd.Additions) != 1 {
		t.Fatalf("update: %+v %v", upd, err)
	}
	// A private zone takes changes too.
	if _, err := e.svc.Changes.Create(testProject, "private-zone", &dns.Change{Additions: []*dns.ResourceRecordSet{
		rrs("db.internal.example.", "A", 300, "10.0.0.5")}}).Do(); err != nil {
		t.Fatal(err)
	}

	// resourceRecordSets.list, paged two at a time, equals the dump.
	var listed []*dns.ResourceRecordSet
	pages = 0
	err = e.svc.ResourceRecordSets.List(testProject, "public-zone").MaxResults(2).Pages(ctx, func(r *dns.ResourceRecordSetsListResponse) error {
		pages++
		listed = append(listed, r.Rrsets...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var dump ZoneDump
	for _, d := range e.emu.Dump() {
		if d.Name == "public-zone" {
			dump = d
		}
	}
	if len(listed) != len(dump.RRSets) || pages != (len(dump.RRSets)+1)/2 || len(listed) != 12 {
		t.Fatalf("listed %d record sets in %d pages, dump has %d", len(listed), pages, len(dump.RRSets))
	}
	for i, r := range listed {
		d := dump.RRSets[i]
		if r.Name != d.Name || r.Type != d.Type || r.Ttl != d.TTL || !reflect.DeepEqual(r.Rrdatas, d.Rrdatas) || r.Kind != "dns#resourceRecordSet" {
			t.Errorf("rrset %d: SDK %+v, stored %+v", i, r, d)
		}
	}
	for _, a := range add {
		if !slices.ContainsFunc(listed, func(r *dns.ResourceRecordSet) bool {
			return r.Name == a.Name && r.Type == a.Type && r.Ttl == a.Ttl && reflect.DeepEqual(r.Rrdatas, a.Rrdatas)
		}) {
			t.Errorf("added %+v not listed as sent", a)
		}
	}
	// name and type filters, and the filter expression.
	byNameType, err := e.svc.ResourceRecordSets.List(testProject, "public-zone").Name("a.example.com.").Type("AAAA").Do()
	if err != nil || len(byNameType.Rrsets) != 1 || byNameType.Rrsets[0].Rrdatas[0] != "2001:db8::10" {
		t.Fatalf("name+type: %+v %v", byNameType, err)
	}
	byFilter, err := e.svc.ResourceRecordSets.List(testProject, "public-zone").Filter(`name=has_suffix("wild.example.com.")`).Do()
	if err != nil || len(byFilter.Rrsets) != 1 || byFilter.Rrsets[0].Name != "*.wild.example.com." {
		t.Fatalf("filter: %+v %v", byFilter, err)
	}

	// Errors the SDK decodes: 412, 409, 404.
	_, err = e.svc.Changes.Create(testProject, "public-zone", &dns.Change{Deletions: []*dns.ResourceRecordSet{rrs("a.example.com.", "A", 61, "192.0.2.10")}}).Do()
	apiErr(t, err, http.StatusPreconditionFailed, "conditionNotMet")
	_, err = e.svc.Changes.Create(testProject, "public-zone", &dns.Change{Additions: []*dns.ResourceRecordSet{rrs("a.example.com.", "A", 60, "192.0.2.11")}}).Do()
	apiErr(t, err, http.StatusConflict, "alreadyExists")
	_, err = e.svc.ManagedZones.Get(testProject, "nope").Do()
	apiErr(t, err, http.StatusNotFound, "notFound")

	// Every raw answer: schema and SDK types; the schemas of external-dns
	// v0.23.0's SDK too, when the module cache has it.
	d := loadDiscovery(t)
	later, haveLater := laterDiscovery(t)
	checked := map[string]int{}
	zoneRE := regexp.MustCompile(`^/dns/v1/projects/[^/]+/managedZones/[^/]+$`)
	for _, x := range e.rec.exchanges() {
		if x.status != http.StatusOK {
			var env envelope
			dec := json.NewDecoder(bytes.NewReader(x.body))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&env); err != nil || env.Error.Code != x.status || env.Error.Status == "" || len(env.Error.Errors) != 1 || env.Error.Errors[0].Domain != "global" {
				t.Errorf("%s %s: %d is not Google's envelope: %s", x.method, x.path, x.status, x.body)
			}
			checked["error"]++
			continue
		}
		if haveLater {
			var v any
			dec := json.NewDecoder(bytes.NewReader(x.body))
			dec.UseNumber()
			if err := dec.Decode(&v); err != nil {
				t.Fatal(err)
			}
			for _, p := range checkAgainstSchema(later, discoverySchema{Ref: schemaFor(x)}, v, later.Revision+" "+schemaFor(x)) {
				t.Error(p)
			}
		}
		switch {
		case x.method == "GET" && strings.HasSuffix(x.path, "/managedZones"):
			checkBody(t, d, "ManagedZonesListResponse", x.body, &dns.ManagedZonesListResponse{})
			checked["ManagedZonesListResponse"]++
		case x.method == "GET" && zoneRE.MatchString(x.path):
			checkBody(t, d, "ManagedZone", x.body, &dns.ManagedZone{})
			checked["ManagedZone"]++
		case x.method == "GET" && strings.HasSuffix(x.path, "/rrsets"):
			checkBody(t, d, "ResourceRecordSetsListResponse", x.body, &dns.ResourceRecordSetsListResponse{})
			checked["ResourceRecordSetsListResponse"]++
		case x.method == "GET" && strings.HasSuffix(x.path, "/changes"):
			checkBody(t, d, "ChangesListResponse", x.body, &dns.ChangesListResponse{})
			checked["ChangesListResponse"]++
		case strings.Contains(x.path, "/changes"):
			checkBody(t, d, "Change", x.body, &dns.Change{})
			checked["Change"]++
		default:
			t.Errorf("unexpected exchange %s %s", x.method, x.path)
		}
	}
	for _, k := range []string{"ManagedZonesListResponse", "ManagedZone", "ResourceRecordSetsListResponse", "Change", "ChangesListResponse", "error"} {
		if checked[k] == 0 {
			t.Errorf("no %s answer was checked", k)
		}
	}
	t.Logf("checked answers: %v", checked)
}

// schemaFor names the discovery schema of a successful answer.
func schemaFor(x exchange) string {
	switch {
	case strings.HasSuffix(x.path, "/managedZones"):
		return "ManagedZonesListResponse"
	case strings.HasSuffix(x.path, "/rrsets"):
		return "ResourceRecordSetsListResponse"
	case x.method == "GET" && strings.HasSuffix(x.path, "/changes"):
		return "ChangesListResponse"
	case strings.Contains(x.path, "/changes"):
		return "Change"
	}
	return "ManagedZone"
}
