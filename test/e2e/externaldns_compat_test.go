package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/zonekeeper/zonekeeper/internal/app"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// sharedFlags are the flags both external-dns and zonekeeper are run with: a drop-in means the same
// command line.
func sharedFlags(e *env) []string {
	return []string{
		"--source=ingress", "--source=service", "--provider=coredns", "--registry=txt",
		"--txt-owner-id=shared", "--policy=sync", "--domain-filter=example.com", "--kubeconfig=" + e.kube.Kubeconfig,
	}
}

// runExternalDNS runs the real external-dns binary (the reference peer) once and returns its log.
func (e *env) runExternalDNS(t *testing.T, extra ...string) string {
	t.Helper()
	return e.runExternalDNSFlags(t, append(append(sharedFlags(e), "--once", "--log-level=debug"), extra...)...)
}

// runExternalDNSFlags runs the real external-dns (e.peer) once with these flags (kingpin refuses a
// flag given twice), against the CoreDNS etcd when the env has one.
func (e *env) runExternalDNSFlags(t *testing.T, flags ...string) string {
	t.Helper()
	if e.peer.Binary == "" {
		t.Fatal("runExternalDNSFlags: the test did not choose an external-dns peer (forEachPeer)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.peer.Binary, append(append(flags, e.peer.Args...),
		fmt.Sprintf("--metrics-address=127.0.0.1:%d", testbed.FreePort(t)))...)
	if e.dnsEtcd != nil {
		cmd.Env = append(os.Environ(), "ETCD_URLS="+e.dnsEtcd.Endpoint)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("external-dns %s: %v\n%s", e.peer.Version, err, tail(string(out), 6000))
	}
	return string(out)
}

// forEachPeer runs test once per external-dns version, each in its own environment.
func forEachPeer(t *testing.T, test func(t *testing.T, e *env)) {
	for _, peer := range testbed.ExternalDNSPeers(t) {
		t.Run(peer.Version, func(t *testing.T) {
			e := startEnv(t)
			e.peer = peer
			test(t, e)
		})
	}
}

// publishTestObjects creates the objects both tools publish: an A from an Ingress, an A from a
// LoadBalancer Service, and a CNAME from a target annotation.
func (e *env) publishTestObjects(t *testing.T) {
	e.createIngress(t, ingress("nginx-test-ingress", "default", nil, "dev1.example.com"), "192.168.10.51")
	e.createIngress(t, ingress("alias", "default", nil, "alias1.example.com"), "192.168.10.60")
	e.createIngress(t, ingress("cname", "default", map[string]string{
		"external-dns.alpha.kubernetes.io/target": "alias1.example.com",
	}, "www.example.com"), "")
	e.createService(t, loadBalancer("web", "default", map[string]string{
		"external-dns.alpha.kubernetes.io/hostname": "web.example.com",
	}), "203.0.113.10")
}

func (e *env) expectTestObjectsAnswered(t *testing.T) {
	e.expectAnswer(t, converge, "dev1.example.com", dns.TypeA, "192.168.10.51")
	e.expectAnswer(t, converge, "web.example.com", dns.TypeA, "203.0.113.10")
	e.expectAnswer(t, converge, "www.example.com", dns.TypeA, "192.168.10.60", "cname:alias1.example.com")
	e.expectAnswer(t, converge, "a-dev1.example.com", dns.TypeTXT, ownership("shared", "ingress/default/nginx-test-ingress"))
}

// etcdRevision is the DNS etcd's current revision: it moves with every write.
func (e *env) etcdRevision(t testing.TB) int64 {
	t.Helper()
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{e.dnsEtcd.Endpoint}, DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	r, err := cli.Get(context.Background(), "/skydns/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		t.Fatal(err)
	}
	return r.Header.Revision
}

// A zone that the real external-dns wrote is, for zonekeeper with the same flags and owner id,
// already in sync: `zonekeeper plan` exits 0 and a zonekeeper run writes nothing.
func TestZoneWrittenByExternalDNSIsInSyncForZonekeeper(t *testing.T) {
	forEachPeer(t, func(t *testing.T, e *env) {
		e.publishTestObjects(t)
		e.runExternalDNS(t)
		e.expectTestObjectsAnswered(t)

		before := e.etcdRevision(t)
		code, out, errOut := e.runCommand(t, append([]string{"plan"}, sharedFlags(e)...)...)
		if code != app.ExitOK {
			t.Fatalf("zonekeeper plan over external-dns's zone: exit %d\n%s\n%s", code, out, errOut)
		}
		code, out, errOut = e.runCommand(t, append([]string{"--once"}, sharedFlags(e)...)...)
		if code != app.ExitOK {
			t.Fatalf("zonekeeper --once: exit %d\n%s\n%s", code, out, errOut)
		}
		if after := e.etcdRevision(t); after != before {
			t.Fatalf("zonekeeper wrote to a zone that was already in sync (revision %d → %d)\n%s", before, after, errOut)
		}
		e.expectTestObjectsAnswered(t)
	})
}

// And the other way: a zone zonekeeper wrote is in sync for external-dns, so users can roll back.
func TestZoneWrittenByZonekeeperIsInSyncForExternalDNS(t *testing.T) {
	forEachPeer(t, func(t *testing.T, e *env) {
		e.publishTestObjects(t)
		code, out, errOut := e.runCommand(t, append([]string{"--once"}, sharedFlags(e)...)...)
		if code != app.ExitOK {
			t.Fatalf("zonekeeper --once: exit %d\n%s\n%s", code, out, errOut)
		}
		e.expectTestObjectsAnswered(t)
		log := e.runExternalDNS(t, "--dry-run")
		if !strings.Contains(log, "All records are already up to date") {
			t.Fatalf("external-dns wants to change zonekeeper's zone:\n%s", tail(log, 6000))
		}
	})
}

// Owner migration (--migrate-from-txt-owner), on CoreDNS: a zone written under owner "old" is taken
// over by "new" — every ownership record is rewritten, nothing else changes — after which zonekeeper
// with owner "new" alone, and the real external-dns with owner "new", find it in sync.
func TestMigrateFromTXTOwner(t *testing.T) {
	forEachPeer(t, func(t *testing.T, e *env) {
		e.publishTestObjects(t)
		withOwner := func(owner string, extra ...string) []string {
			return append([]string{"--source=ingress", "--source=service", "--registry=txt", "--txt-owner-id=" + owner, "--policy=sync"}, extra...)
		}
		if code, out, errOut := e.runCommand(t, append([]string{"--once"}, withOwner("old")...)...); code != app.ExitOK {
			t.Fatalf("zonekeeper as old: exit %d\n%s\n%s", code, out, errOut)
		}
		e.expectAnswer(t, converge, "a-dev1.example.com", dns.TypeTXT, ownership("old", "ingress/default/nginx-test-ingress"))
		if code, out, errOut := e.runCommand(t, append([]string{"--once"}, withOwner("new", "--migrate-from-txt-owner=old")...)...); code != app.ExitOK {
			t.Fatalf("zonekeeper migrating: exit %d\n%s\n%s", code, out, errOut)
		}
		e.expectAnswer(t, converge, "a-dev1.example.com", dns.TypeTXT, ownership("new", "ingress/default/nginx-test-ingress"))
		e.expectAnswer(t, converge, "dev1.example.com", dns.TypeA, "192.168.10.51")
		e.expectAnswer(t, converge, "www.example.com", dns.TypeA, "192.168.10.60", "cname:alias1.example.com")
		if code, out, errOut := e.runCommand(t, append([]string{"plan"}, withOwner("new")...)...); code != app.ExitOK {
			t.Fatalf("zonekeeper plan as new after the migration: exit %d\n%s\n%s", code, out, errOut)
		}
		flags := sharedFlags(e)
		for i, f := range flags {
			if strings.HasPrefix(f, "--txt-owner-id=") {
				flags[i] = "--txt-owner-id=new"
			}
		}
		if log := e.runExternalDNSFlags(t, append(flags, "--once", "--log-level=debug", "--dry-run")...); !strings.Contains(log, "All records are already up to date") {
			t.Fatalf("external-dns as new wants changes:\n%s", tail(log, 4000))
		}
	})
}
