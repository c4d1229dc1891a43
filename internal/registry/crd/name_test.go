package crd

import (
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// The names external-dns v0.23 gives DNSRecords (registry/crd/crd.go:304-321): hashes computed with
// sha256sum outside Go, so the test does not check the code against itself. The e2e test
// (test/e2e/crd_registry_compat_test.go) compares the names with the ones the real external-dns writes.
func TestObjectNameIsExternalDNSs(t *testing.T) {
	for _, c := range []struct {
		key  endpoint.Key
		want string
	}{
		{endpoint.Key{DNSName: "dev1.example.com", RecordType: "A"}, "dev1-example-com-92e8dc69"},
		{endpoint.Key{DNSName: "DEV1.Example.com.", RecordType: "a"}, "dev1-example-com-92e8dc69"},
		{endpoint.Key{DNSName: "www.example.com", RecordType: "CNAME"}, "www-example-com-edfee3b4"},
		{endpoint.Key{DNSName: "web.example.com", RecordType: "A", SetIdentifier: "eu"}, "web-example-com-0909b22e"},
		{endpoint.Key{DNSName: "*.example.com", RecordType: "A"}, "example-com-bd399aa6"},
		{endpoint.Key{DNSName: "-", RecordType: "A"}, "record-2ae33dc0"},
	} {
		if got := objectName(c.key); got != c.want {
			t.Errorf("objectName(%+v) = %s, want %s", c.key, got, c.want)
		}
	}
}

// A name past 253 characters is cut, never ending in "-", and stays a valid object name.
func TestObjectNameFitsKubernetes(t *testing.T) {
	long := strings.Repeat("a", 62) + "." + strings.Repeat("b", 62) + "." + strings.Repeat("c", 62) + "." + strings.Repeat("d", 62) + ".example.com"
	got := objectName(endpoint.Key{DNSName: long, RecordType: "A"})
	if len(got) > 253 || strings.Contains(got, "--") || strings.HasPrefix(got, "-") {
		t.Fatalf("objectName of a %d-character name: %q (%d)", len(long), got, len(got))
	}
	if objectName(endpoint.Key{DNSName: "sub.example.io", RecordType: "A"}) == objectName(endpoint.Key{DNSName: "sub-example.io", RecordType: "A"}) {
		t.Fatal("names that read the same after the replacement share a DNSRecord")
	}
}
