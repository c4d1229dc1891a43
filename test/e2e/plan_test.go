package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zonekeeper/zonekeeper/internal/app"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// runCommand runs one zonekeeper command to completion and returns its exit code and output.
func (e *env) runCommand(t testing.TB, args ...string) (int, string, string) {
	t.Helper()
	return e.run(t, append(args, "--provider=coredns", "--domain-filter=example.com")...)
}

// A zone written by external-dns (random record ids, quoted ownership TXT) for the same objects and
// owner is already in sync for zonekeeper: `zonekeeper plan` exits 0. A changed object makes it exit 2
// and list the change without applying it; `--once` applies it, and plan is back to 0.
func TestPlanOverAZoneWrittenByExternalDNS(t *testing.T) {
	e := startEnv(t)
	ing := e.createIngress(t, ingress("nginx-test-ingress", "default", nil, "dev1.example.com"), "192.168.10.51")
	e.putEtcd(t, map[string]string{
		"/skydns/com/example/dev1/5c2a16b3":   `{"host":"192.168.10.51","targetstrip":1}`,
		"/skydns/com/example/a-dev1/11f0c7e9": `{"text":"\"heritage=external-dns,external-dns/owner=edns,external-dns/resource=ingress/default/nginx-test-ingress\"","targetstrip":1}`,
	})

	code, out, errOut := e.runCommand(t, "plan", "--source=ingress", "--txt-owner-id=edns", "--policy=sync")
	if code != app.ExitOK || !strings.Contains(out, "No changes") {
		t.Fatalf("plan over external-dns's zone: exit %d\n%s\n%s", code, out, errOut)
	}

	e.setIngressIP(t, ing, "192.168.10.52")
	testbed.Eventually(t, 10*time.Second, "plan sees the new status", func() error {
		code, out, errOut = e.runCommand(t, "plan", "--source=ingress", "--txt-owner-id=edns", "--policy=sync")
		if code != app.ExitHasChanges || !strings.Contains(out, "UPDATE  dev1.example.com A 192.168.10.51 -> 192.168.10.52") {
			return &planError{code, out + errOut}
		}
		return nil
	})
	e.expectAnswer(t, time.Second, "dev1.example.com", dns.TypeA, "192.168.10.51") // plan changed nothing

	if code, out, errOut := e.runCommand(t, "--once", "--source=ingress", "--txt-owner-id=edns", "--policy=sync"); code != 0 {
		t.Fatalf("--once: exit %d\n%s\n%s", code, out, errOut)
	}
	e.expectAnswer(t, time.Second, "dev1.example.com", dns.TypeA, "192.168.10.52")
	if code, out, errOut := e.runCommand(t, "plan", "--source=ingress", "--txt-owner-id=edns", "--policy=sync"); code != app.ExitOK {
		t.Fatalf("plan after --once: exit %d\n%s\n%s", code, out, errOut)
	}

	// Another owner id sees the records as someone else's: nothing to do, and nothing taken over.
	if code, out, errOut := e.runCommand(t, "plan", "--source=ingress", "--txt-owner-id=intruder", "--policy=sync"); code != app.ExitOK {
		t.Fatalf("plan with a foreign owner id: exit %d\n%s\n%s", code, out, errOut)
	}
	// A bad flag is exit 1 with the flag named.
	if code, _, errOut := e.runCommand(t, "plan", "--source=ingress", "--policy=everything"); code != app.ExitError || !strings.Contains(errOut, "--policy") {
		t.Fatalf("bad flag: exit %d\n%s", code, errOut)
	}
}

type planError struct {
	code int
	out  string
}

func (p *planError) Error() string { return fmt.Sprintf("exit %d: %s", p.code, p.out) }
