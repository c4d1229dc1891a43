package txt

import "testing"

// TestMapperExamples reproduces every row of the examples table (section 6.4 of the behaviour
// reference): A nginx.example.com and CNAME www.example.com under each configuration.
func TestMapperExamples(t *testing.T) {
	type row struct {
		config                 string
		prefix, suffix, wc     string
		legacy                 bool
		recordName, recordType string
		want                   string
	}
	rows := []row{
		{config: "defaults", recordName: "nginx.example.com", recordType: "A", want: "a-nginx.example.com"},
		{config: "defaults", recordName: "www.example.com", recordType: "CNAME", want: "cname-www.example.com"},
		{config: "legacy", legacy: true, recordName: "nginx.example.com", recordType: "A", want: "nginx.example.com"},
		{config: "legacy", legacy: true, recordName: "www.example.com", recordType: "CNAME", want: "www.example.com"},
		{config: "prefix", prefix: "extdns-", recordName: "nginx.example.com", recordType: "A", want: "extdns-a-nginx.example.com"},
		{config: "prefix", prefix: "extdns-", recordName: "www.example.com", recordType: "CNAME", want: "extdns-cname-www.example.com"},
		{config: "legacy+prefix", prefix: "extdns-", legacy: true, recordName: "nginx.example.com", recordType: "A", want: "extdns-nginx.example.com"},
		{config: "legacy+prefix", prefix: "extdns-", legacy: true, recordName: "www.example.com", recordType: "CNAME", want: "extdns-www.example.com"},
		{config: "prefix template", prefix: "extdns-%{record_type}.", recordName: "nginx.example.com", recordType: "A", want: "extdns-a.nginx.example.com"},
		{config: "prefix template", prefix: "extdns-%{record_type}.", recordName: "www.example.com", recordType: "CNAME", want: "extdns-cname.www.example.com"},
		{config: "suffix", suffix: "-extdns", recordName: "nginx.example.com", recordType: "A", want: "a-nginx-extdns.example.com"},
		{config: "suffix", suffix: "-extdns", recordName: "www.example.com", recordType: "CNAME", want: "cname-www-extdns.example.com"},
		{config: "suffix template", suffix: "-%{record_type}", recordName: "nginx.example.com", recordType: "A", want: "nginx-a.example.com"},
		{config: "suffix template", suffix: "-%{record_type}", recordName: "www.example.com", recordType: "CNAME", want: "www-cname.example.com"},
		{config: "wildcard", wc: "wc", recordName: "*.example.com", recordType: "A", want: "a-wc.example.com"},
		{config: "wildcard", wc: "wc", recordName: "*.example.com", recordType: "CNAME", want: "cname-wc.example.com"},
		{config: "apex", recordName: "example.com", recordType: "A", want: "a-example.com"},
		{config: "apex prefix template", prefix: "reg-%{record_type}.", recordName: "example.com", recordType: "A", want: "reg-a.example.com"},
		{config: "aws alias", recordName: "www.example.com", recordType: "A", want: "a-www.example.com"},
		{config: "aws alias", recordName: "www.example.com", recordType: "AAAA", want: "aaaa-www.example.com"},
	}
	for _, r := range rows {
		t.Run(r.config+"/"+r.recordType, func(t *testing.T) {
			m, err := NewMapper(r.prefix, r.suffix, r.wc)
			if err != nil {
				t.Fatal(err)
			}
			got := m.TXTName(r.recordName, r.recordType)
			wantType := r.recordType
			if r.legacy {
				got, wantType = m.LegacyTXTName(r.recordName), ""
			}
			if got != r.want {
				t.Fatalf("TXT name: got %q, want %q", got, r.want)
			}
			// Reverse: the TXT name leads back to the record (a wildcard comes back replaced).
			wantName := r.recordName
			if r.wc != "" {
				wantName = "wc.example.com"
			}
			name, typ, ok := m.RecordName(got)
			if !ok || name != wantName || typ != wantType {
				t.Fatalf("RecordName(%q) = (%q, %q, %v), want (%q, %q, true)", got, name, typ, ok, wantName, wantType)
			}
		})
	}
}

func TestMapperReverse(t *testing.T) {
	tests := []struct {
		prefix, suffix, txt string
		name, typ           string
		ok                  bool
	}{
		{txt: "aaaa-www.example.com", name: "www.example.com", typ: "AAAA", ok: true},
		{txt: "A-WWW.Example.com.", name: "www.example.com", typ: "A", ok: true},
		{txt: "txt-www.example.com", name: "www.example.com", typ: "TXT", ok: true},
		{txt: "my-app.example.com", name: "my-app.example.com", typ: "", ok: true},
		{prefix: "extdns-", txt: "other-a-www.example.com", ok: false},
		{prefix: "%{record_type}-", txt: "aaaa-www.example.com", name: "www.example.com", typ: "AAAA", ok: true},
		{prefix: "x%{record_type}", txt: "xaaaawww.example.com", name: "www.example.com", typ: "AAAA", ok: true},
		{suffix: "-%{record_type}", txt: "www-aaaa.example.com", name: "www.example.com", typ: "AAAA", ok: true},
		{suffix: ".reg", txt: "a-www.reg.example.com", name: "www.example.com", typ: "A", ok: true},
		{suffix: ".reg", txt: "www.reg.example.com", name: "www.example.com", typ: "", ok: true},
		{suffix: "-extdns", txt: "a-www.example.com", ok: false},
		{suffix: "-extdns", txt: "a-extdns", name: "a", typ: "", ok: true},
		{suffix: "-extdns", txt: "-extdns.example.com", ok: false},
		{txt: "a-", ok: false},
	}
	for _, tt := range tests {
		m, err := NewMapper(tt.prefix, tt.suffix, "")
		if err != nil {
			t.Fatal(err)
		}
		name, typ, ok := m.RecordName(tt.txt)
		if ok != tt.ok || ok && (name != tt.name || typ != tt.typ) {
			t.Errorf("prefix %q suffix %q: RecordName(%q) = (%q, %q, %v), want (%q, %q, %v)",
				tt.prefix, tt.suffix, tt.txt, name, typ, ok, tt.name, tt.typ, tt.ok)
		}
	}
}

func TestMapperRejectsPrefixAndSuffix(t *testing.T) {
	if _, err := NewMapper("p-", "-s", ""); err == nil {
		t.Fatal("prefix and suffix together must fail")
	}
}

func TestMapperLowerCasesAffixes(t *testing.T) {
	m, _ := NewMapper("ExtDNS-", "", "WC")
	if got := m.TXTName("*.example.com", "CNAME"); got != "extdns-cname-wc.example.com" {
		t.Fatalf("got %q", got)
	}
}
