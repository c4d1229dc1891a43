package dnsserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadTSIGKeyFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "keys.conf")
	// As tsig-keygen prints it, twice.
	if err := os.WriteFile(good, []byte(`key "xfr-key" {
	algorithm hmac-sha256;
	secret "`+xfrSecret+`";
};
key "Other-Key" {
	algorithm hmac-sha512;
	secret "b3RoZXItc2VjcmV0";
};
`), 0o600); err != nil {
		t.Fatal(err)
	}
	keys, err := ReadTSIGKeyFile(good)
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 2 || keys["xfr-key."] != xfrSecret || keys["other-key."] != "b3RoZXItc2VjcmV0" {
		t.Fatalf("keys %v", keys)
	}
	for body, want := range map[string]string{
		"":                                    "no key clause",
		`key "k" { algorithm hmac-sha256; };`: "no secret",
		`key "k" { secret "not base64!!"; };`: "not base64",
	} {
		p := filepath.Join(dir, "bad.conf")
		_ = os.WriteFile(p, []byte(body), 0o600)
		if _, err := ReadTSIGKeyFile(p); err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), xfrSecret) {
			t.Errorf("%q: %v, want an error containing %q", body, err, want)
		}
	}
}
