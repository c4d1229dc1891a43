package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/miekg/dns"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/app"
)

// Issue 11 defect 8: encrypted ownership records (--txt-encrypt-enabled) were checked against golden
// strings only. Here they round-trip through the real external-dns: records it encrypted are ours for
// zonekeeper with the same key (plan: no changes), and after zonekeeper re-encrypts them on an update,
// external-dns still reads them as its own (dry run: up to date).
func TestTXTEncryptionRoundTripsWithExternalDNS(t *testing.T) {
	forEachPeer(t, func(t *testing.T, e *env) {
		e.publishTestObjects(t)
		flags := append(sharedFlags(e), "--txt-encrypt-enabled", "--txt-encrypt-aes-key=0123456789abcdef0123456789abcdef")
		e.runExternalDNSFlags(t, append(flags, "--once", "--log-level=debug")...)
		e.expectAnswer(t, converge, "dev1.example.com", dns.TypeA, "192.168.10.51")
		_, txt, err := e.answers("a-dev1.example.com", dns.TypeTXT)
		if err != nil || len(txt) == 0 || strings.Contains(strings.Join(txt, " "), "heritage=") {
			t.Fatalf("external-dns's ownership record with --txt-encrypt-enabled: %v %v", txt, err)
		}
		e.expectPlan(t, app.ExitOK, "No changes", flags...)

		ing, err := e.client.NetworkingV1().Ingresses("default").Get(context.Background(), "nginx-test-ingress", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		e.setIngressIP(t, ing, "192.168.10.77")
		// Without the key the records are not recognisably ours: zonekeeper must not update them.
		if code, out, errOut := e.run(t, append([]string{"plan"}, sharedFlags(e)...)...); strings.Contains(out, "UPDATE") {
			t.Fatalf("zonekeeper without the key would update external-dns's encrypted records (exit %d):\n%s\n%s", code, out, tail(errOut, 3000))
		}
		e.expectPlan(t, app.ExitHasChanges, "UPDATE", flags...)
		if code, out, errOut := e.run(t, append([]string{"--once"}, flags...)...); code != app.ExitOK {
			t.Fatalf("zonekeeper --once: exit %d\n%s\n%s", code, out, tail(errOut, 4000))
		}
		e.expectAnswer(t, converge, "dev1.example.com", dns.TypeA, "192.168.10.77")
		if log := e.runExternalDNSFlags(t, append(flags, "--once", "--log-level=debug", "--dry-run")...); !strings.Contains(log, "All records are already up to date") {
			t.Fatalf("external-dns does not read zonekeeper's encrypted records as its own:\n%s", tail(log, 4000))
		}
	})
}
