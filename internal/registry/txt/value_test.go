package txt

import (
	"bytes"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

func TestSerializeLabels(t *testing.T) {
	labels := endpoint.Labels{
		"resource":                  "service/default/nginx",
		"owner":                     "cluster-a",
		endpoint.TxtEncryptionNonce: "must-not-appear",
	}
	got := quote(serializeLabels(labels))
	if got != nginxValue {
		t.Fatalf("got  %s\nwant %s", got, nginxValue)
	}
}

func TestParseLabels(t *testing.T) {
	tests := []struct {
		text  string
		owned bool
		owner string
	}{
		{nginxValue, true, "cluster-a"},
		{unquote(nginxValue), true, "cluster-a"},
		{`"heritage=external-dns,external-dns/owner=b,junk,a=b=c"`, true, "b"},
		{`"heritage=mate,external-dns/owner=cluster-a"`, false, ""},
		{`"external-dns/owner=cluster-a"`, false, ""},
		{`"v=spf1 include:_spf.example.net -all"`, false, ""},
		{``, false, ""},
	}
	for _, tt := range tests {
		labels, ok := parseLabels(tt.text)
		if ok != tt.owned || labels[endpoint.OwnerLabelKey] != tt.owner {
			t.Errorf("parseLabels(%s) = %v, %v", tt.text, labels, ok)
		}
	}
}

// The golden values were produced by a stand-alone copy of external-dns's endpoint.EncryptText
// (gzip at best compression, flush, close, then AES-256-GCM with the nonce prepended, base64).
const (
	testKey          = "0123456789abcdef0123456789abcdef"
	testNonce        = "fixednonce12"
	goldenEncrypted  = "Zml4ZWRub25jZTEyBcpwj8eq8RwpsjAXYSYwHFpERR3W8PeJnyx605SCUiJQpcXSLxenmr3ZYFvQ1r1bQtAzT4wDO+YAAFhPWPGwCKbtXGsl6wgB2TslXs657usVwnGnSnI07YIRnlEow7HUVAxZkrMIPVefIH1eEg/3"
	goldenNoGzipForm = "Zml4ZWRub25jZTEyciQK5rPLlnkWKByqxVneXTps8faBkFLB5jWZOWEKyBP4IUB6zw5DKyUZbBULkIt6VA/XwaXHio2IAaYdLilBMhFIVFC0HzgGnp5+WAfQjY7FWRXBK/inAWw3CmZGu1/o4e6HZZNey6UgffRbUIU="
)

func TestEncryptMatchesExternalDNS(t *testing.T) {
	c := codec{key: []byte(testKey), encrypt: true, rand: bytes.NewReader([]byte(testNonce))}
	got, err := c.encode(endpoint.Labels{"owner": "cluster-a", "resource": "service/default/nginx"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got != quote(goldenEncrypted) {
		t.Fatalf("got  %s\nwant %q", got, goldenEncrypted)
	}
}

func TestDecrypt(t *testing.T) {
	c := codec{key: []byte(testKey)}
	for _, v := range []string{goldenEncrypted, quote(goldenEncrypted), goldenNoGzipForm} {
		own := c.decode(v)
		if own == nil {
			t.Fatalf("%s: not recognised", v)
		}
		if own.labels["owner"] != "cluster-a" || own.labels["resource"] != "service/default/nginx" {
			t.Fatalf("%s: labels %v", v, own.labels)
		}
		if own.labels[endpoint.TxtEncryptionNonce] != "Zml4ZWRub25jZTEy" { // base64("fixednonce12")
			t.Fatalf("nonce label %q", own.labels[endpoint.TxtEncryptionNonce])
		}
	}
	// With a key, plain values still read (fallback), and a wrong key falls back to plain, which fails.
	if own := c.decode(nginxValue); own == nil || own.nonce() != "" {
		t.Fatal("plain value not read with a key set")
	}
	other := codec{key: []byte("ffffffffffffffffffffffffffffffff")}
	if own := other.decode(goldenEncrypted); own != nil {
		t.Fatal("a value under another key must read as an ordinary TXT")
	}
	if own := (codec{}).decode(goldenEncrypted); own != nil {
		t.Fatal("an encrypted value without a key must read as an ordinary TXT")
	}
}

// Re-encrypting the same labels gives the same text; different labels never reuse the nonce.
func TestEncodeNonceReuse(t *testing.T) {
	c := codec{key: []byte(testKey), encrypt: true, rand: bytes.NewReader(bytes.Repeat([]byte{7}, 64))}
	prev := c.decode(goldenEncrypted)
	same, err := c.encode(prev.labels, prev)
	if err != nil || same != quote(goldenEncrypted) {
		t.Fatalf("re-encryption changed the text: %s %v", same, err)
	}
	changed, err := c.encode(endpoint.Labels{"owner": "cluster-a", "resource": "service/default/other"}, prev)
	if err != nil {
		t.Fatal(err)
	}
	back := c.decode(changed)
	if back == nil || back.nonce() == prev.nonce() {
		t.Fatalf("new text must get a fresh nonce: %+v", back)
	}
}

func TestParseAESKey(t *testing.T) {
	raw := testKey
	b64 := "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=" // base64 of testKey
	for _, in := range []string{raw, b64} {
		k, err := ParseAESKey(in)
		if err != nil || string(k) != testKey {
			t.Fatalf("ParseAESKey(%q) = %q, %v", in, k, err)
		}
	}
	for _, in := range []string{"", "short", "c2hvcnQ="} {
		if _, err := ParseAESKey(in); err == nil {
			t.Fatalf("ParseAESKey(%q) must fail", in)
		}
	}
}

func TestNewValidates(t *testing.T) {
	_, p := newZone()
	bad := []Config{
		{},
		{OwnerID: "a", Prefix: "p-", Suffix: "-s"},
		{OwnerID: "a", EncryptEnabled: true},
		{OwnerID: "a", EncryptKey: []byte("too short")},
		{OwnerID: "a", CacheInterval: -1},
	}
	for _, cfg := range bad {
		if _, err := New(p, cfg); err == nil {
			t.Errorf("New(%+v) must fail", cfg)
		}
	}
	if _, err := New(p, Config{OwnerID: "a", EncryptEnabled: true, EncryptKey: []byte("MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=")}); err != nil {
		t.Fatal(err)
	}
}
