package e2e

import (
	"fmt"
	"net"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// splitHorizonCorefile serves example.com from two etcd prefixes with CoreDNS's view plugin: clients
// in internalCIDR get /skydns (the internal view), everyone else /external.
func splitHorizonCorefile(port int, etcd, internalCIDR string) string {
	return fmt.Sprintf(`example.com.:%[1]d {
    bind 127.0.0.1 127.0.0.2
    view internal {
        expr incidr(client_ip(), '%[3]s')
    }
    etcd {
        path /skydns
        endpoint %[2]s
    }
}
example.com.:%[1]d {
    bind 127.0.0.1 127.0.0.2
    etcd {
        path /external
        endpoint %[2]s
    }
}
`, port, etcd, internalCIDR)
}

// lookupFrom asks server for name/qtype from the local address from (a loopback address), as a client
// of that address would.
func lookupFrom(from, server, name string, qtype uint16) ([]string, error) {
	_, out, err := query(server, from, "udp", name, qtype)
	return out, err
}

// Split horizon with one zonekeeper: an Ingress on the real kube-apiserver is published to two etcd
// prefixes — the internal view with the cluster's (private) address, the external view with the WAN
// address and TTL 900 — and a real CoreDNS with view blocks answers each client from its view. The
// external view leaves out names under lan.example.com; ownership TXT records are in both, unchanged.
func TestSplitHorizonOnCoreDNSViews(t *testing.T) {
	e := startEnv(t)
	port := testbed.FreePort(t)
	split := testbed.StartCoreDNS(t, port, splitHorizonCorefile(port, e.dnsEtcd.Endpoint, "127.0.0.1/32"))
	ing := e.createIngress(t, ingress("home", "default", nil, "app.example.com", "nas.lan.example.com"), "192.168.1.50")

	z := e.start(t, "--source=ingress", "--txt-owner-id=home", "--policy=sync",
		"--view=internal", "--view=external",
		"--view-coredns-prefix=internal=/skydns/", "--view-coredns-prefix=external=/external/",
		"--view-targets=external=public", "--view-ttl=external=900",
		"--view-exclude-domains=external=lan.example.com",
		"--public-ip=203.0.113.7")

	expect := func(from, name string, qtype uint16, want ...string) {
		t.Helper()
		sort.Strings(want)
		testbed.Eventually(t, converge, fmt.Sprintf("%s from %s", name, from), func() error {
			got, err := lookupFrom(from, split.Addr, name, qtype)
			if err != nil {
				return err
			}
			if strings.Join(got, "|") != strings.Join(want, "|") {
				return fmt.Errorf("got %v", got)
			}
			return nil
		})
	}
	expect("127.0.0.1", "app.example.com", dns.TypeA, "192.168.1.50")
	expect("127.0.0.2", "app.example.com", dns.TypeA, "203.0.113.7")
	expect("127.0.0.1", "nas.lan.example.com", dns.TypeA, "192.168.1.50")
	expect("127.0.0.2", "nas.lan.example.com", dns.TypeA)
	expect("127.0.0.2", "a-app.example.com", dns.TypeTXT, ownership("home", "ingress/default/home"))

	// The external view carries TTL 900.
	c := &dns.Client{Timeout: 2 * time.Second, Dialer: &net.Dialer{LocalAddr: &net.UDPAddr{IP: net.ParseIP("127.0.0.2")}}}
	m := new(dns.Msg)
	m.SetQuestion("app.example.com.", dns.TypeA)
	if r, _, err := c.Exchange(m, split.Addr); err != nil || len(r.Answer) != 1 || r.Answer[0].Header().Ttl != 900 {
		t.Fatalf("external answer %v, %v: want TTL 900", r, err)
	}

	// The cluster address changes: the internal view follows; the external view keeps the WAN address.
	e.setIngressIP(t, ing, "192.168.1.51")
	expect("127.0.0.1", "app.example.com", dns.TypeA, "192.168.1.51")
	expect("127.0.0.2", "app.example.com", dns.TypeA, "203.0.113.7")

	// Metrics per view: the external view excludes lan.example.com, so it wants one record set fewer.
	// The reconcile reports after the DNS write, so the figures may trail the answers briefly.
	testbed.Eventually(t, 5*time.Second, "metrics per view", func() error {
		_, metrics, err := z.get("/metrics")
		if err != nil {
			return err
		}
		for _, want := range []string{
			`zonekeeper_view_endpoints{kind="desired",view="internal"} 2`,
			`zonekeeper_view_endpoints{kind="desired",view="external"} 1`,
			"external_dns_source_endpoints_total 3",
			`zonekeeper_changes_applied_total{action="UPDATE",record_type="A",view="internal"} 2`,
		} {
			if !strings.Contains(metrics, want+"\n") {
				return fmt.Errorf("/metrics lacks %s", want)
			}
		}
		if strings.Contains(metrics, `zonekeeper_changes_applied_total{action="UPDATE",record_type="A",view="external"}`) {
			return fmt.Errorf("the external view counts an update it did not make")
		}
		return nil
	})
}
