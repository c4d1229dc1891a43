package e2e

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/miekg/dns"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// A record type the provider cannot hold, or a PTR the configuration does not let zonekeeper make, is
// told to its object (a condition on a DNSEndpoint, an Event on an Ingress) while the object's other
// records are published; the provider is never sent it. CoreDNS over etcd holds A, AAAA, CNAME and
// TXT only.
func TestRecordTypeProblemsOnObjects(t *testing.T) {
	e := startEnv(t)
	dyn := e.installCRD(t)
	ctx := context.Background()
	res := dyn.Resource(source.DNSEndpointResource()).Namespace("default")
	if _, err := res.Create(ctx, dnsEndpointObject("tls",
		map[string]any{"dnsName": "tls.example.com", "recordType": "A", "targets": []any{"192.0.2.80"}},
		map[string]any{"dnsName": "_443._tcp.tls.example.com", "recordType": "TLSA", "targets": []any{"3 1 1 0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9"}},
	), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.createIngress(t, ingress("rev", "default", map[string]string{
		"external-dns.alpha.kubernetes.io/record-type": "ptr",
	}, "rev.example.com"), "192.168.10.70")

	// PTR and TLSA managed, the reverse zones in --domain-filter: both reach the plan, and the CoreDNS
	// provider's capabilities leave them out.
	in := e.start(t, "--source=crd", "--source=ingress", "--txt-owner-id=e2e", "--policy=sync", "--domain-filter=in-addr.arpa",
		"--managed-record-types=A", "--managed-record-types=CNAME", "--managed-record-types=TLSA", "--managed-record-types=PTR")
	e.expectAnswer(t, converge, "tls.example.com", dns.TypeA, "192.0.2.80")
	e.expectAnswer(t, converge, "rev.example.com", dns.TypeA, "192.168.10.70")
	testbed.Eventually(t, converge, "DNSEndpoint tls names the TLSA record", func() error {
		u, err := res.Get(ctx, "tls", metav1.GetOptions{})
		if err != nil {
			return err
		}
		s, r, m := condition(u, "Ready")
		if s != "False" || !strings.Contains(m, "TLSA") || !strings.Contains(m, "coredns") {
			return fmt.Errorf("Ready %s %s %q", s, r, m)
		}
		return nil
	})
	e.expectEvent(t, "default", "Ingress", "rev", "InvalidInput", "70.10.168.192.in-addr.arpa PTR", "record type PTR is not supported")
	if log := in.log.String(); regexp.MustCompile(`rejected=[1-9]`).MatchString(log) {
		t.Errorf("the provider was sent a change it refused:\n%s", tail(log, 4000))
	}
	in.stop(t)

	// The reverse zone outside --domain-filter: external-dns's plan drops the PTR without a word.
	in = e.start(t, "--source=ingress", "--txt-owner-id=e2e", "--policy=sync", "--managed-record-types=A", "--managed-record-types=PTR")
	e.expectEvent(t, "default", "Ingress", "rev", "InvalidAnnotation", "record-type", "70.10.168.192.in-addr.arpa", "outside --domain-filter")
	in.stop(t)

	// PTR not managed: external-dns v0.23 leaves the annotation unread; zonekeeper says so on the object.
	e.start(t, "--source=ingress", "--txt-owner-id=e2e", "--policy=sync")
	e.expectEvent(t, "default", "Ingress", "rev", "InvalidAnnotation", "record-type", "PTR is not in --managed-record-types")
}
