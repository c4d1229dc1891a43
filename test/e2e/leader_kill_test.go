package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// The leader is killed outright (SIGKILL: no lease release, as in a node crash); the follower takes
// over once the lease expires and publishes an Ingress created after the kill, within the lease
// duration plus a retry period or two.
func TestLeaderKilledFollowerTakesOver(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	e := startEnv(t)
	bin := buildZonekeeper(t)
	const lease = 4 * time.Second
	start := func(name string) *zonekeeperProcess {
		return startZonekeeper(t, bin, "replica", name, []string{"ETCD_URLS=" + e.dnsEtcd.Endpoint},
			"--kubeconfig="+e.kube.Kubeconfig, "--source=ingress", "--provider=coredns",
			"--domain-filter=example.com", "--txt-owner-id=e2e", "--policy=sync",
			"--interval=1h", // no resync inside the idle window below
			"--leader-elect", "--leader-elect-namespace=default", fmt.Sprintf("--leader-elect-lease-duration=%s", lease),
			"--leader-elect-renew-deadline=3s", "--leader-elect-retry-period=500ms")
	}
	e.createIngress(t, ingress("first", "default", nil, "first.example.com"), "192.0.2.90")
	leader := start("leader")
	e.expectAnswer(t, converge, "first.example.com", dns.TypeA, "192.0.2.90")
	follower := start("follower")
	testbed.Eventually(t, converge, "follower follows", func() error {
		if !strings.Contains(follower.log.String(), "Following the leader") {
			return fmt.Errorf("not yet")
		}
		return nil
	})
	if !strings.Contains(leader.log.String(), "Became the leader") {
		t.Fatal("the first process never led")
	}

	if err := leader.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	e.createIngress(t, ingress("second", "default", nil, "second.example.com"), "192.0.2.91")
	e.expectAnswer(t, lease+3*time.Second, "second.example.com", dns.TypeA, "192.0.2.91")
	t.Logf("published %s after the leader was killed (lease %s)", time.Since(killed).Round(10*time.Millisecond), lease)
	// Issue 11: after the takeover the new leader is idle again (no reconcile, CPU at baseline).
	t.Logf("new leader idle: %.3f CPU-s per minute", expectReplicaIdle(t, "new leader", follower.cmd.Process.Pid, follower.metrics, 20*time.Second))
}
