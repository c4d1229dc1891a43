package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/route53emu"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// Issue 15 item 6 (docs/scaling.md): two zonekeeper processes of the real binary shard one cluster
// by namespace, as a user does when one process is not enough: each has its own --namespace, its own
// --txt-owner-id and its own Lease (--leader-elect-lease-name), and half of the account's Route 53
// budget (--aws-requests-per-second=2.5 each, the emulator enforcing 5 per account). Both publish
// into one hosted zone. Shown: both lead at once (two Leases, two holders); each publishes its own
// namespace's Services and plans no change to any other name (its log of desired changes); the
// foreign record stays; a hostname that moves from one namespace to the other (the Service deleted in
// one, created in the other) is deleted by the first shard (after --guard-settle) and created by the
// second; no request of either is throttled. The second shard's create may reach Route 53 before the
// first shard's delete: it is refused (the set exists) and retried, never overwriting.
func TestShardsByNamespaceShareOneZone(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	const zone = "shards.test"
	e, srv, bin := startShardingBed(t, withForeignRecord(zone))
	e.createNamespace(t, "team-a")
	e.createNamespace(t, "team-b")
	testShardsShareOneZone(t, e, srv, bin, oneZoneSplit{
		zone: zone, subnet: "10.50.0.",
		flags: func(shard string) string { return "--namespace=team-" + shard },
		create: func(name, shard, ip string) string {
			e.createService(t, annotated(loadBalancer(name, "team-"+shard, nil), "hostname", name+"."+zone), ip)
			return "service/team-" + shard + "/" + name
		},
		// The Service is deleted in team-a and created in team-b, with another address.
		move: func(name, _ string) (string, string) {
			if err := e.client.CoreV1().Services("team-a").Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			e.createService(t, annotated(loadBalancer(name, "team-b", nil), "hostname", name+"."+zone), "10.50.0.4")
			return "service/team-b/" + name, "10.50.0.4"
		},
	})
}

// oneZoneSplit is one way to split Services over two shards, a and b, that publish into one zone.
type oneZoneSplit struct {
	zone   string
	subnet string                                         // the Services' addresses: SUBNET1, SUBNET2, SUBNET3
	flags  func(shard string) string                      // the flag that makes a process shard a or b
	create func(name, shard, ip string) (resource string) // a Service of the shard publishing name.ZONE
	move   func(name, ip string) (resource, newIP string) // moves the Service from shard a to shard b
}

// testShardsShareOneZone runs two shards as split says: web in a, api in b, mover in a and then moved
// to b. Shown: each publishes its own Services, the foreign record stays, both lead at once, mover is
// handed over (deleted by a, created by b) and nothing moves back; each shard planned changes to its
// own names only, and the only refusal is b's create of mover while a still held it.
func testShardsShareOneZone(t *testing.T, e *env, srv *route53emu.Server, bin string, split oneZoneSplit) {
	t.Helper()
	const interval = 3 * time.Second
	zone := split.zone
	want := map[string]string{"keep." + zone + " A": "192.0.2.50"}
	for i, s := range []struct{ name, shard string }{{"web", "a"}, {"api", "b"}, {"mover", "a"}} {
		ip := split.subnet + string(rune('1'+i))
		resource := split.create(s.name, s.shard, ip)
		want[s.name+"."+zone+" A"] = ip
		want["a-"+s.name+"."+zone+" TXT"] = ownership("shard-"+s.shard, resource)
	}
	a := startShard(t, bin, e.kube.Kubeconfig, "a", interval, split.flags("a"), "--domain-filter="+zone)
	b := startShard(t, bin, e.kube.Kubeconfig, "b", interval, split.flags("b"), "--domain-filter="+zone)
	st := &awsStack{srv: srv}
	st.expectSets(t, converge, zone, want)

	// Both lead at once, each holding its own Lease.
	expectTwoLeaders(t, e.kube, a, b)

	// mover moves from shard a to shard b: shard a deletes its records, shard b creates its own.
	moved := time.Now()
	resource, ip := split.move("mover", want["mover."+zone+" A"])
	want["mover."+zone+" A"] = ip
	want["a-mover."+zone+" TXT"] = ownership("shard-b", resource)
	st.expectSets(t, 3*interval+10*time.Second, zone, want)
	t.Logf("handed over from shard a to shard b in %s (--interval %s)", time.Since(moved).Round(100*time.Millisecond), interval)
	time.Sleep(interval + time.Second) // a resync of each: nothing moves back
	st.expectSets(t, time.Second, zone, want)

	// Each shard planned changes to its own names only, and the moved name as its owner changed.
	expectPlannedOnly(t, map[string]map[string]bool{
		"a": {"CREATE web." + zone: true, "CREATE a-web." + zone: true, "CREATE mover." + zone: true, "CREATE a-mover." + zone: true,
			"DELETE mover." + zone: true, "DELETE a-mover." + zone: true},
		"b": {"CREATE api." + zone: true, "CREATE a-api." + zone: true, "CREATE mover." + zone: true, "CREATE a-mover." + zone: true},
	}, a, b)
	expectOnlyHandoverRefused(t, srv, b, "mover."+zone, a, b)
}

// Issue 15 item 6, the other split: two processes shard one cluster by hosted zone, each with its own
// --domain-filter (every namespace), owner id and Lease. A Service naming a host in each zone is
// published half by each; neither shard makes a single call about the other's zone (the emulator's
// call log, by access key); a hostname moved from one zone to the other (the annotation edited) is
// deleted by the first shard and created by the second; no request is refused or throttled.
func TestShardsByZone(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	const east, west = "east.test", "west.test"
	e, srv, bin := startShardingBed(t, route53emu.SeedZone{Name: east}, route53emu.SeedZone{Name: west})
	zoneIDs := map[string]string{}
	for _, z := range srv.Dump() {
		zoneIDs[strings.TrimSuffix(z.Name, ".")] = z.ID
	}
	const interval = 3 * time.Second

	e.createService(t, annotated(loadBalancer("shop", "default", nil), "hostname", "shop."+east+",shop."+west), "10.60.0.1")
	blog := e.createService(t, annotated(loadBalancer("blog", "default", nil), "hostname", "blog."+east), "10.60.0.2")
	e.createService(t, annotated(loadBalancer("wiki", "default", nil), "hostname", "wiki."+west), "10.60.0.3")
	a := startShard(t, bin, e.kube.Kubeconfig, "east", interval, "--domain-filter="+east)
	b := startShard(t, bin, e.kube.Kubeconfig, "west", interval, "--domain-filter="+west)
	wantEast := map[string]string{
		"shop." + east + " A": "10.60.0.1", "a-shop." + east + " TXT": ownership("shard-east", "service/default/shop"),
		"blog." + east + " A": "10.60.0.2", "a-blog." + east + " TXT": ownership("shard-east", "service/default/blog"),
	}
	wantWest := map[string]string{
		"shop." + west + " A": "10.60.0.1", "a-shop." + west + " TXT": ownership("shard-west", "service/default/shop"),
		"wiki." + west + " A": "10.60.0.3", "a-wiki." + west + " TXT": ownership("shard-west", "service/default/wiki"),
	}
	st := &awsStack{srv: srv}
	st.expectSets(t, converge, east, wantEast)
	st.expectSets(t, converge, west, wantWest)
	expectTwoLeaders(t, e.kube, a, b)

	// blog moves from east.test to west.test.
	blog, err := e.client.CoreV1().Services("default").Get(context.Background(), blog.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	blog.Annotations["external-dns.alpha.kubernetes.io/hostname"] = "blog." + west
	if _, err := e.client.CoreV1().Services("default").Update(context.Background(), blog, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	moved := time.Now()
	delete(wantEast, "blog."+east+" A")
	delete(wantEast, "a-blog."+east+" TXT")
	wantWest["blog."+west+" A"] = "10.60.0.2"
	wantWest["a-blog."+west+" TXT"] = ownership("shard-west", "service/default/blog")
	st.expectSets(t, 3*interval+10*time.Second, west, wantWest)
	st.expectSets(t, 3*interval+10*time.Second, east, wantEast)
	t.Logf("handed over from zone %s to zone %s in %s (--interval %s, --guard-settle 3s)", east, west, time.Since(moved).Round(100*time.Millisecond), interval)
	time.Sleep(interval + time.Second) // a resync of each: nothing moves back
	st.expectSets(t, time.Second, east, wantEast)
	st.expectSets(t, time.Second, west, wantWest)

	// Neither shard made a call about the other's zone.
	own := map[string]string{"AKIDSHARDEAST": zoneIDs[east], "AKIDSHARDWEST": zoneIDs[west]}
	perShard := map[string]map[string]int{}
	for _, c := range srv.Calls() {
		if perShard[c.AccessKeyID] == nil {
			perShard[c.AccessKeyID] = map[string]int{}
		}
		perShard[c.AccessKeyID][c.Operation]++
		if c.ZoneID != "" && c.ZoneID != own[c.AccessKeyID] {
			t.Errorf("%s called %s on zone %s, not its own %s", c.AccessKeyID, c.Operation, c.ZoneID, own[c.AccessKeyID])
		}
	}
	if perShard["AKIDSHARDEAST"]["ChangeResourceRecordSets"] == 0 || perShard["AKIDSHARDWEST"]["ChangeResourceRecordSets"] == 0 || len(perShard) != 2 {
		t.Errorf("calls by access key %v: want both shards writing and nobody else", perShard)
	}
	if errs := srv.Counters().Errors; len(errs) != 0 {
		t.Errorf("Route 53 errors %v: disjoint zones and 2.5 requests/s each should meet none", errs)
	}
	t.Logf("calls by shard %v", perShard)
}

// startShardingBed starts what every sharding test runs on: AWS credentials for the SDK, the real
// kube-apiserver, the Route 53 emulator holding zones and enforcing the account's 5 requests/s, and
// the binary.
func startShardingBed(t *testing.T, zones ...route53emu.SeedZone) (*env, *route53emu.Server, string) {
	t.Helper()
	awsCredentials(t)
	kube := testbed.StartKubeAPIServer(t)
	srv := startEmulator(t, route53emu.Options{RateLimit: 5}, zones...)
	return &env{kube: kube, client: kube.Client(t)}, srv, buildZonekeeper(t)
}

// withForeignRecord is zone holding keep.ZONE A 192.0.2.50, a record no shard owns.
func withForeignRecord(zone string) route53emu.SeedZone {
	return route53emu.SeedZone{Name: zone, Records: []route53emu.RecordSet{
		{Name: "keep." + zone, Type: "A", TTL: route53emu.NumberOf(300), ResourceRecords: &route53emu.ResourceRecords{Items: []route53emu.ResourceRecord{{Value: "192.0.2.50"}}}},
	}}
}

// startShard runs the binary as shard name: Services, Route 53, owner id shard-NAME, Lease
// zonekeeper-NAME, half of the account's 5 requests/s, the access key AKIDSHARDNAME (so that the
// emulator's call log says which shard made each call), and the shard's own flags.
func startShard(t *testing.T, bin, kubeconfig, name string, interval time.Duration, flags ...string) *zonekeeperProcess {
	t.Helper()
	args := append([]string{"--kubeconfig=" + kubeconfig, "--source=service", "--provider=aws",
		"--txt-owner-id=shard-" + name, "--policy=sync", "--interval=" + interval.String(),
		"--aws-requests-per-second=2.5", "--log-format=json",
		"--leader-elect", "--leader-elect-namespace=default", "--leader-elect-lease-name=zonekeeper-" + name,
		"--leader-elect-lease-duration=4s", "--leader-elect-renew-deadline=3s", "--leader-elect-retry-period=500ms"}, flags...)
	return startZonekeeper(t, bin, "shard", name, []string{"AWS_ACCESS_KEY_ID=AKIDSHARD" + strings.ToUpper(name)}, args...)
}

// expectTwoLeaders waits until each shard leads, holding its own Lease, the two held by different
// replicas.
func expectTwoLeaders(t *testing.T, kube *testbed.KubeAPIServer, a, b *zonekeeperProcess) {
	t.Helper()
	holders := map[string]string{}
	testbed.Eventually(t, converge, "two Leases held", func() error {
		for _, s := range []*zonekeeperProcess{a, b} {
			l, err := kube.Client(t).CoordinationV1().Leases("default").Get(context.Background(), "zonekeeper-"+s.name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == "" {
				return fmt.Errorf("lease zonekeeper-%s has no holder", s.name)
			}
			if !strings.Contains(s.log.String(), `"msg":"Became the leader"`) {
				return fmt.Errorf("shard %s does not lead", s.name)
			}
			holders[s.name] = *l.Spec.HolderIdentity
		}
		return nil
	})
	if holders[a.name] == holders[b.name] {
		t.Errorf("both Leases held by %q", holders[a.name])
	}
}

// desiredChanges are the "ACTION name" of every "Desired change" line of a JSON log, in order (the
// record type left out: an A and its TXT share the name's fate).
func desiredChanges(log string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var line struct {
			Msg string `json:"msg"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil || !strings.HasPrefix(line.Msg, "Desired change: ") {
			continue
		}
		f := strings.Fields(strings.TrimPrefix(line.Msg, "Desired change: "))
		if len(f) >= 2 {
			out = append(out, f[0]+" "+strings.TrimSuffix(f[1], "."))
		}
	}
	return out
}

// expectPlannedOnly checks each shard's log of desired changes ("ACTION name", allowed by shard name):
// it planned no change outside allowed, and every allowed change but the ownership TXTs' (which may be
// logged or not).
func expectPlannedOnly(t *testing.T, allowed map[string]map[string]bool, shards ...*zonekeeperProcess) {
	t.Helper()
	for _, s := range shards {
		changes := desiredChanges(s.log.String())
		seen := map[string]bool{}
		for _, c := range changes {
			seen[c] = true
			if !allowed[s.name][c] {
				t.Errorf("shard %s planned %q, outside its shard", s.name, c)
			}
		}
		for c := range allowed[s.name] {
			if !seen[c] && !strings.Contains(c, " a-") {
				t.Errorf("shard %s never planned %q", s.name, c)
			}
		}
		t.Logf("shard %s planned %v", s.name, changes)
	}
}

// expectOnlyHandoverRefused checks, for shards that write into one zone, that every shard wrote (by
// its access key) and nobody else did, that Route 53 throttled nothing, and that the only change
// refused is taker's CREATE of the handed-over name while the other shard still held it (Route 53
// refuses a CREATE of an existing set, so nothing is overwritten; retried until the delete settled).
func expectOnlyHandoverRefused(t *testing.T, srv *route53emu.Server, taker *zonekeeperProcess, handedOver string, shards ...*zonekeeperProcess) {
	t.Helper()
	writes := map[string]int{}
	for _, c := range srv.Calls() {
		if c.Operation == "ChangeResourceRecordSets" {
			writes[c.AccessKeyID]++
		}
	}
	for _, s := range shards {
		if writes["AKIDSHARD"+strings.ToUpper(s.name)] == 0 {
			t.Errorf("shard %s never wrote: writes by access key %v", s.name, writes)
		}
	}
	if len(writes) != len(shards) {
		t.Errorf("writes by access key %v: want the %d shards and nobody else", writes, len(shards))
	}
	errs := srv.Counters().Errors
	for k, n := range errs {
		if k != "ChangeResourceRecordSets:InvalidChangeBatch" {
			t.Errorf("Route 53 answered %s %d times: the shards' 2.5 requests/s each should fit the account's 5", k, n)
		}
	}
	for _, s := range shards {
		for _, line := range strings.Split(s.log.String(), "\n") {
			if strings.Contains(line, `"msg":"Change rejected by the provider"`) &&
				(s != taker || !strings.Contains(line, `"record":"`+handedOver+`"`) || !strings.Contains(line, "already exists")) {
				t.Errorf("shard %s: a change other than the handover's CREATE was refused: %s", s.name, line)
			}
		}
	}
	t.Logf("calls %v, errors %v, writes by shard %v", srv.Counters().Calls, errs, writes)
}
