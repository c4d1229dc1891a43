package coredns

import (
	"context"
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// bed is one etcd prefix with a CoreDNS serving it and a provider writing to it.
type bed struct {
	etcd     *testbed.Etcd
	prefix   string // "/skydns-3/"
	provider *Provider
	raw      *clientv3.Client
	dns      *testbed.CoreDNS
}

// newBed starts CoreDNS for a fresh prefix on etcd and builds a provider for zones.
func newBed(t testing.TB, etcd *testbed.Etcd, withDNS bool, zones ...string) *bed {
	t.Helper()
	// Each test gets its own prefix, so the conformance cases can share one etcd server.
	sum := sha256.Sum256([]byte(t.Name()))
	b := &bed{etcd: etcd, prefix: fmt.Sprintf("/skydns-%x/", sum[:4])}
	p, err := New(Config{Endpoints: []string{etcd.Endpoint}, Prefix: b.prefix, DomainFilter: zones})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	b.provider = p
	b.raw, err = clientv3.New(clientv3.Config{Endpoints: []string{etcd.Endpoint}, DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.raw.Close() })
	if withDNS {
		b.dns = testbed.StartCoreDNSForEtcd(t, etcd.Endpoint, strings.TrimSuffix(b.prefix, "/"), zonesFQDN(zones)...)
	}
	return b
}

func zonesFQDN(zones []string) []string {
	out := make([]string, len(zones))
	for i, z := range zones {
		out[i] = dns.Fqdn(z)
	}
	return out
}

// put writes a raw key below the bed's prefix ("com/example/www/x1").
func (b *bed) put(t testing.TB, rel, value string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := b.raw.Put(ctx, b.prefix+rel, value); err != nil {
		t.Fatal(err)
	}
}

// dump returns every key below the prefix (relative) with its value.
func (b *bed) dump(t testing.TB) map[string]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := b.raw.Get(ctx, b.prefix, clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, kv := range resp.Kvs {
		out[strings.TrimPrefix(string(kv.Key), b.prefix)] = string(kv.Value)
	}
	return out
}

// query asks CoreDNS over TCP and returns the whole response.
func (b *bed) query(t testing.TB, name string, qtype uint16) *dns.Msg {
	t.Helper()
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), qtype)
	c := &dns.Client{Net: "tcp", Timeout: 5 * time.Second}
	r, _, err := c.Exchange(m, b.dns.Addr)
	if err != nil {
		t.Fatalf("query %s %s: %v", name, dns.TypeToString[qtype], err)
	}
	if r.Rcode != dns.RcodeSuccess && r.Rcode != dns.RcodeNameError {
		t.Fatalf("query %s %s: rcode %s\n%s", name, dns.TypeToString[qtype], dns.RcodeToString[r.Rcode], b.dns.Log())
	}
	return r
}

func (b *bed) lookup(t *testing.T, name string, qtype uint16) []dns.RR {
	return b.query(t, name, qtype).Answer
}

func startEtcd(t testing.TB) *testbed.Etcd {
	t.Helper()
	return testbed.StartEtcd(t)
}
