package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/route53emu"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// Issue 11, fault suite: two replicas of the real binary, each with its own AWS access key, so that
// the Route 53 emulator's call log says which replica made each write. While Services keep arriving,
// the leader is partitioned (SIGSTOP past the lease, then continued), and the Lease is deleted by hand.
// From the call log and the replicas' logs: once a replica has started a term, the other one makes no
// write until it starts a term again (never two writers); every Service is published exactly once.
func TestTwoReplicasNeverBothWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	awsCredentials(t)
	kube := testbed.StartKubeAPIServer(t)
	e := &env{kube: kube, client: kube.Client(t)}
	srv := startEmulator(t, route53emu.Options{}, route53emu.SeedZone{Name: awsZone})
	bin := buildZonekeeper(t)
	const lease = 4 * time.Second

	start := func(name string) *zonekeeperProcess {
		return startZonekeeper(t, bin, "replica", name, []string{"AWS_ACCESS_KEY_ID=AKID" + strings.ToUpper(name)},
			"--kubeconfig="+kube.Kubeconfig, "--source=service", "--provider=aws",
			"--domain-filter="+awsZone, "--txt-owner-id=e2e", "--policy=sync", "--interval=1h",
			"--log-format=json", "--leader-elect", "--leader-elect-namespace=default",
			fmt.Sprintf("--leader-elect-lease-duration=%s", lease), "--leader-elect-renew-deadline=3s",
			"--leader-elect-retry-period=500ms")
	}
	leading := func(r *zonekeeperProcess) bool { return strings.Contains(r.log.String(), `"msg":"Became the leader"`) }

	// Services keep arriving, one every 400 ms, for the whole test.
	want := map[string]string{}
	var mu sync.Mutex
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ctx.Err() == nil; i++ {
			name := fmt.Sprintf("w%d", i)
			ip := fmt.Sprintf("10.32.%d.%d", i/250, 1+i%250)
			e.createService(t, annotated(loadBalancer(name, "default", nil), "hostname", name+"."+awsZone), ip)
			mu.Lock()
			want[name+"."+awsZone+" A"] = ip
			want["a-"+name+"."+awsZone+" TXT"] = ownership("e2e", "service/default/"+name)
			mu.Unlock()
			time.Sleep(400 * time.Millisecond)
		}
	}()

	a := start("a")
	testbed.Eventually(t, converge, "replica a leads", func() error {
		if !leading(a) {
			return fmt.Errorf("not yet")
		}
		return nil
	})
	b := start("b")
	time.Sleep(3 * time.Second)

	// The leader is partitioned past its lease: the other takes over; then the leader continues.
	if err := syscall.Kill(-a.cmd.Process.Pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	testbed.Eventually(t, lease+10*time.Second, "replica b takes over", func() error {
		if !leading(b) {
			return fmt.Errorf("not yet")
		}
		return nil
	})
	time.Sleep(2 * time.Second)
	if err := syscall.Kill(-a.cmd.Process.Pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Second)

	// The Lease deleted by hand until the replica that does not hold it re-creates it first (either
	// may: a race).
	termsOf := func(r *zonekeeperProcess) int { return strings.Count(r.log.String(), `"msg":"Became the leader"`) }
	before := termsOf(a) + termsOf(b)
	deletions := 0
	for ; deletions < 8 && termsOf(a)+termsOf(b) == before; deletions++ {
		if err := kube.Client(t).CoordinationV1().Leases("default").Delete(context.Background(), "zonekeeper", metav1.DeleteOptions{}); err != nil {
			t.Logf("delete Lease: %v", err)
		}
		time.Sleep(lease + 2*time.Second)
	}
	stop()
	wg.Wait()

	st := &awsStack{srv: srv}
	mu.Lock()
	st.expectSets(t, 2*converge, awsZone, want)
	mu.Unlock()

	// Every write in time order, with the terms the replicas started.
	type event struct {
		at      time.Time
		replica string
		term    bool // a term started; otherwise a write
	}
	var events []event
	writes := map[string]int{}
	for _, c := range srv.Calls() {
		if c.Operation == "ChangeResourceRecordSets" {
			r := strings.ToLower(strings.TrimPrefix(c.AccessKeyID, "AKID"))
			events = append(events, event{at: c.Time, replica: r})
			writes[r]++
		}
	}
	terms := map[string]int{}
	for _, r := range []*zonekeeperProcess{a, b} {
		sc := bufio.NewScanner(strings.NewReader(r.log.String()))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var line struct {
				Time time.Time `json:"time"`
				Msg  string    `json:"msg"`
			}
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "Became the leader" {
				events = append(events, event{at: line.Time, replica: r.name, term: true})
				terms[r.name]++
			}
		}
	}
	sort.SliceStable(events, func(i, j int) bool { return events[i].at.Before(events[j].at) })
	holder := ""
	for _, ev := range events {
		switch {
		case ev.term:
			holder = ev.replica
		case ev.replica != holder:
			t.Errorf("replica %s wrote at %s while replica %q held the term", ev.replica, ev.at.Format("15:04:05.000"), holder)
		}
	}
	if terms["b"] == 0 || writes["b"] == 0 {
		t.Errorf("replica b never led and wrote (terms %v, writes %v): the partition tested nothing", terms, writes)
	}
	t.Logf("writes per replica %v, terms %v (the Lease deleted %d times), %d record sets", writes, terms, deletions, len(want))

	// Issue 11: after the partition and the Lease deletions both replicas are idle again: no reconcile,
	// no call to Route 53, CPU at baseline.
	calls := len(srv.Calls())
	for _, r := range []*zonekeeperProcess{a, b} {
		t.Logf("replica %s idle: %.3f CPU-s per minute", r.name, expectReplicaIdle(t, "replica "+r.name, r.cmd.Process.Pid, r.metrics, 20*time.Second))
	}
	if n := len(srv.Calls()) - calls; n != 0 {
		t.Errorf("%d Route 53 calls while both replicas should idle", n)
	}
}
