package txt

import (
	"context"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

func desired() []*endpoint.Endpoint {
	return []*endpoint.Endpoint{
		endpoint.New("nginx.example.com", "A", "203.0.113.10").WithLabel("resource", "service/default/nginx"),
		endpoint.New("nginx.example.com", "AAAA", "2001:db8::10").WithLabel("resource", "service/default/nginx"),
		endpoint.New("www.example.com", "CNAME", "lb-1.example.net").WithLabel("resource", "ingress/default/web"),
		endpoint.New("*.apps.example.com", "A", "203.0.113.20").WithLabel("resource", "ingress/apps/wild"),
		endpoint.New("geo.example.com", "A", "203.0.113.30").WithSetIdentifier("eu").
			WithLabel("resource", "service/default/geo").WithProviderSpecific("aws/weight", "10"),
		endpoint.New("geo.example.com", "A", "198.51.100.30").WithSetIdentifier("us").
			WithLabel("resource", "service/default/geo"),
	}
}

// TestRoundTrip: one registry writes, a second instance with the same owner (a restart) reads the
// same records, labels and all, under every naming configuration.
func TestRoundTrip(t *testing.T) {
	configs := map[string]Config{
		"defaults":        {},
		"prefix":          {Prefix: "extdns-"},
		"suffix":          {Suffix: "-extdns"},
		"prefix template": {Prefix: "reg-%{record_type}."},
		"suffix template": {Suffix: "-%{record_type}"},
		"wildcard":        {WildcardReplacement: "wildcard"},
		"encrypted":       {EncryptEnabled: true, EncryptKey: []byte(testKey)},
	}
	for name, cfg := range configs {
		t.Run(name, func(t *testing.T) {
			cfg.OwnerID = "cluster-a"
			mem, _ := newZone()
			writer := mustNew(t, mem, cfg)
			if err := writer.ApplyChanges(context.Background(), &plan.Changes{Create: desired()}); err != nil {
				t.Fatal(err)
			}
			reader := mustNew(t, mem, cfg)
			got := mustRecords(t, reader)
			if len(got) != len(desired()) {
				t.Fatalf("got %d records, want %d: %v", len(got), len(desired()), got)
			}
			for _, want := range desired() {
				e := find(got, want.DNSName, want.RecordType)
				if want.SetIdentifier != "" {
					e = nil
					for _, g := range got {
						if g.Key() == want.Key() {
							e = g
						}
					}
				}
				if e == nil {
					t.Fatalf("%s missing", want.Key())
				}
				if e.Owner() != "cluster-a" || e.Resource() != want.Resource() {
					t.Errorf("%s: labels %v", want.Key(), e.Labels)
				}
				if _, ok := e.GetProviderSpecific(ForceUpdateProperty); ok {
					t.Errorf("%s: force-update on a record written in the new format", want.Key())
				}
			}
			// The writer's own (write-through) view matches the reader's.
			assertCacheIsFresh(t, writer, mem, cfg)
			// Reading again and writing nothing new: the reader has nothing to apply.
			if err := reader.ApplyChanges(context.Background(), &plan.Changes{Create: nil}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestWritesExternalDNSFormat checks the bytes on the provider side: external-dns must be able to read
// what we write.
func TestWritesExternalDNSFormat(t *testing.T) {
	mem, _ := newZone()
	r := mustNew(t, mem, Config{OwnerID: "cluster-a"})
	err := r.ApplyChanges(context.Background(), &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.New("nginx.example.com", "A", "203.0.113.10").WithLabel("resource", "service/default/nginx"),
		endpoint.New("www.example.com", "CNAME", "lb-1.example.net").WithLabel("resource", "ingress/default/web"),
		endpoint.New("geo.example.com", "A", "203.0.113.30").WithSetIdentifier("eu").WithLabel("resource", "service/default/nginx"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	raw := providerRecords(t, mem)
	for name, value := range map[string]string{"a-nginx.example.com": nginxValue, "cname-www.example.com": webValue} {
		e := find(raw, name, "TXT")
		if e == nil || len(e.Targets) != 1 || e.Targets[0] != value {
			t.Fatalf("%s: got %v, want %s", name, e, value)
		}
		if e.Labels[endpoint.OwnedRecordLabelKey] == "" {
			t.Errorf("%s: no ownedRecord label", name)
		}
	}
	if e := find(raw, "a-geo.example.com", "TXT"); e == nil || e.SetIdentifier != "eu" {
		t.Fatalf("the TXT must carry the record's set identifier: %v", e)
	}
	if len(raw) != 6 {
		t.Fatalf("want 3 records and 3 TXTs, got %v", raw)
	}
}
