package txt

import (
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// TestReadsExternalDNSRecords loads zones exactly as external-dns would have left them and checks that
// every record gets the owner and resource its TXT declares and that no ownership TXT shows.
func TestReadsExternalDNSRecords(t *testing.T) {
	nginx := func() *endpoint.Endpoint { return endpoint.New("nginx.example.com", "A", "203.0.113.10") }
	www := func() *endpoint.Endpoint { return endpoint.New("www.example.com", "CNAME", "lb-1.example.net") }
	type want struct {
		name, recordType, resource string
		forceUpdate                bool
	}
	tests := []struct {
		name  string
		cfg   Config
		zone  []*endpoint.Endpoint
		wants []want
	}{
		{
			name: "defaults",
			zone: []*endpoint.Endpoint{
				nginx(), txtRecord("a-nginx.example.com", nginxValue),
				www(), txtRecord("cname-www.example.com", webValue),
			},
			wants: []want{
				{"nginx.example.com", "A", "service/default/nginx", false},
				{"www.example.com", "CNAME", "ingress/default/web", false},
			},
		},
		{
			name:  "unquoted values (a provider that strips quotes)",
			zone:  []*endpoint.Endpoint{nginx(), txtRecord("a-nginx.example.com", unquote(nginxValue))},
			wants: []want{{"nginx.example.com", "A", "service/default/nginx", false}},
		},
		{
			name:  "legacy same-name TXT: owned, and flagged for the TXT rewrite",
			zone:  []*endpoint.Endpoint{nginx(), txtRecord("nginx.example.com", nginxValue)},
			wants: []want{{"nginx.example.com", "A", "service/default/nginx", true}},
		},
		{
			name: "prefix",
			cfg:  Config{Prefix: "extdns-"},
			zone: []*endpoint.Endpoint{
				nginx(), txtRecord("extdns-a-nginx.example.com", nginxValue),
				www(), txtRecord("extdns-cname-www.example.com", webValue),
			},
			wants: []want{
				{"nginx.example.com", "A", "service/default/nginx", false},
				{"www.example.com", "CNAME", "ingress/default/web", false},
			},
		},
		{
			name: "legacy with prefix",
			cfg:  Config{Prefix: "extdns-"},
			zone: []*endpoint.Endpoint{
				nginx(), txtRecord("extdns-nginx.example.com", nginxValue),
				www(), txtRecord("extdns-www.example.com", webValue),
			},
			wants: []want{
				{"nginx.example.com", "A", "service/default/nginx", true},
				{"www.example.com", "CNAME", "ingress/default/web", true},
			},
		},
		{
			name: "suffix",
			cfg:  Config{Suffix: "-extdns"},
			zone: []*endpoint.Endpoint{
				nginx(), txtRecord("a-nginx-extdns.example.com", nginxValue),
				www(), txtRecord("cname-www-extdns.example.com", webValue),
			},
			wants: []want{
				{"nginx.example.com", "A", "service/default/nginx", false},
				{"www.example.com", "CNAME", "ingress/default/web", false},
			},
		},
		{
			name: "record type in the prefix",
			cfg:  Config{Prefix: "extdns-%{record_type}."},
			zone: []*endpoint.Endpoint{
				nginx(), txtRecord("extdns-a.nginx.example.com", nginxValue),
				www(), txtRecord("extdns-cname.www.example.com", webValue),
			},
			wants: []want{
				{"nginx.example.com", "A", "service/default/nginx", false},
				{"www.example.com", "CNAME", "ingress/default/web", false},
			},
		},
		{
			name: "record type in the suffix",
			cfg:  Config{Suffix: "-%{record_type}"},
			zone: []*endpoint.Endpoint{
				nginx(), txtRecord("nginx-a.example.com", nginxValue),
				www(), txtRecord("www-cname.example.com", webValue),
			},
			wants: []want{
				{"nginx.example.com", "A", "service/default/nginx", false},
				{"www.example.com", "CNAME", "ingress/default/web", false},
			},
		},
		{
			name: "wildcard replacement",
			cfg:  Config{WildcardReplacement: "wc"},
			zone: []*endpoint.Endpoint{
				endpoint.New("*.example.com", "A", "203.0.113.10"), txtRecord("a-wc.example.com", nginxValue),
			},
			wants: []want{{"*.example.com", "A", "service/default/nginx", false}},
		},
		{
			name:  "encrypted with a fixed key and nonce",
			cfg:   Config{EncryptEnabled: true, EncryptKey: []byte(testKey)},
			zone:  []*endpoint.Endpoint{nginx(), txtRecord("a-nginx.example.com", quote(goldenEncrypted))},
			wants: []want{{"nginx.example.com", "A", "service/default/nginx", false}},
		},
		{
			name:  "encrypted value, key set but encryption off (switching back)",
			cfg:   Config{EncryptKey: []byte(testKey)},
			zone:  []*endpoint.Endpoint{nginx(), txtRecord("a-nginx.example.com", quote(goldenEncrypted))},
			wants: []want{{"nginx.example.com", "A", "service/default/nginx", false}},
		},
		{
			name: "set identifiers keep routing-policy records apart",
			zone: []*endpoint.Endpoint{
				nginx().WithSetIdentifier("eu"), txtRecord("a-nginx.example.com", nginxValue).WithSetIdentifier("eu"),
				endpoint.New("nginx.example.com", "A", "198.51.100.7").WithSetIdentifier("us"),
			},
			wants: []want{{"nginx.example.com", "A", "service/default/nginx", false}},
		},
		{
			name: "AWS A alias owned through the pre-v0.22 cname- TXT",
			zone: []*endpoint.Endpoint{
				endpoint.New("www.example.com", "A", "lb.elb.amazonaws.com").WithProviderSpecific("alias", "true"),
				txtRecord("cname-www.example.com", webValue),
			},
			wants: []want{{"www.example.com", "A", "ingress/default/web", true}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mem, _ := newZone()
			seed(t, mem, tt.zone...)
			tt.cfg.OwnerID = "cluster-a"
			eps := mustRecords(t, mustNew(t, mem, tt.cfg))
			nonTXT := 0
			for _, e := range eps {
				if e.RecordType == endpoint.RecordTypeTXT {
					t.Errorf("ownership TXT %s is visible", e.DNSName)
				} else {
					nonTXT++
				}
			}
			seededRecords := 0
			for _, e := range tt.zone {
				if e.RecordType != endpoint.RecordTypeTXT {
					seededRecords++
				}
			}
			if nonTXT != seededRecords {
				t.Errorf("got %d records, want %d", nonTXT, seededRecords)
			}
			for _, w := range tt.wants {
				e := find(eps, w.name, w.recordType)
				if e == nil {
					t.Fatalf("%s %s missing from %v", w.name, w.recordType, eps)
				}
				if e.Owner() != "cluster-a" || e.Resource() != w.resource {
					t.Errorf("%s: labels %v, want owner cluster-a resource %s", w.name, e.Labels, w.resource)
				}
				_, force := e.GetProviderSpecific(ForceUpdateProperty)
				if force != w.forceUpdate {
					t.Errorf("%s: force-update %v, want %v", w.name, force, w.forceUpdate)
				}
			}
		})
	}
}

func TestSetIdentifierWithoutTXTIsUnowned(t *testing.T) {
	mem, _ := newZone()
	seed(t, mem,
		endpoint.New("nginx.example.com", "A", "203.0.113.10").WithSetIdentifier("eu"),
		txtRecord("a-nginx.example.com", nginxValue).WithSetIdentifier("eu"),
		endpoint.New("nginx.example.com", "A", "198.51.100.7").WithSetIdentifier("us"))
	eps := mustRecords(t, mustNew(t, mem, Config{OwnerID: "cluster-a"}))
	if len(eps) != 2 {
		t.Fatalf("got %v", eps)
	}
	for _, e := range eps {
		if want := e.SetIdentifier == "eu"; (e.Owner() == "cluster-a") != want {
			t.Errorf("%s [%s]: owner %q", e.DNSName, e.SetIdentifier, e.Owner())
		}
	}
}

// Foreign and unowned TXTs: ordinary TXTs stay visible; any external-dns TXT is hidden, whoever owns it.
func TestOrdinaryTXTStaysVisible(t *testing.T) {
	mem, _ := newZone()
	seed(t, mem,
		txtRecord("example.com", `"v=spf1 -all"`),
		txtRecord("a-orphan.example.com", `"heritage=external-dns,external-dns/owner=someone-else"`),
		txtRecord("a-other.example.com", `"heritage=mate,external-dns/owner=cluster-a"`),
		endpoint.New("nginx.example.com", "AAAA", "2001:db8::1"),
		txtRecord("nginx.example.com", nginxValue), // legacy: never applies to AAAA
	)
	eps := mustRecords(t, mustNew(t, mem, Config{OwnerID: "cluster-a"}))
	if find(eps, "example.com", "TXT") == nil || find(eps, "a-other.example.com", "TXT") == nil {
		t.Fatalf("ordinary TXTs must stay visible: %v", eps)
	}
	if find(eps, "a-orphan.example.com", "TXT") != nil || find(eps, "nginx.example.com", "TXT") != nil {
		t.Fatalf("ownership TXTs must be hidden: %v", eps)
	}
	if e := find(eps, "nginx.example.com", "AAAA"); e == nil || e.Owner() != "" {
		t.Fatalf("AAAA must not take ownership from a legacy TXT: %v", e)
	}
	if len(eps) != 3 {
		t.Fatalf("got %d records: %v", len(eps), eps)
	}
}

// A legacy-looking name that is really the new-format TXT of another record must not hand ownership to
// a record that happens to carry that name.
func TestLegacyLookupIgnoresNewFormatNames(t *testing.T) {
	mem, _ := newZone()
	seed(t, mem,
		endpoint.New("a-foo.example.com", "A", "203.0.113.10"),
		txtRecord("a-foo.example.com", nginxValue), // the TXT of foo.example.com A
	)
	eps := mustRecords(t, mustNew(t, mem, Config{OwnerID: "cluster-a"}))
	if e := find(eps, "a-foo.example.com", "A"); e == nil || e.Owner() != "" {
		t.Fatalf("a-foo.example.com must stay unowned: %v", e)
	}
}

// Labels a provider returns under the ownership keys are not trusted: only TXTs establish ownership.
func TestProviderLabelsDoNotGrantOwnership(t *testing.T) {
	mem, _ := newZone()
	seed(t, mem, endpoint.New("nginx.example.com", "A", "203.0.113.10").
		WithLabel(endpoint.OwnerLabelKey, "cluster-a").WithLabel("coredns/private", "keep"))
	eps := mustRecords(t, mustNew(t, mem, Config{OwnerID: "cluster-a"}))
	e := find(eps, "nginx.example.com", "A")
	if e.Owner() != "" || e.Labels["coredns/private"] != "keep" {
		t.Fatalf("labels %v", e.Labels)
	}
}
