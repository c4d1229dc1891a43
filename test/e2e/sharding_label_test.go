package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/route53emu"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// Issue 15 item 6, the label split (docs/scaling.md, "label or annotation"): two processes of the real
// binary shard one cluster by --label-filter, every namespace, into one hosted zone holding a foreign
// record; each has its own owner id, Lease and half of the account's 5 requests/s. Shown: both lead at
// once; each publishes the Services its selector matches and plans no change to any other name (its
// log of desired changes), a Service neither matches is published by neither, the foreign record
// stays; a Service relabelled from one shard to the other is deleted by the first (after
// --guard-settle) and created by the second; no request is throttled. The second shard's create may
// reach Route 53 before the first shard's delete: it is refused (the set exists) and retried.
func TestShardsByLabelShareOneZone(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	awsCredentials(t)
	kube := testbed.StartKubeAPIServer(t)
	e := &env{kube: kube, client: kube.Client(t)}
	const zone = "labels.test"
	srv := startEmulator(t, route53emu.Options{RateLimit: 5}, route53emu.SeedZone{Name: zone, Records: []route53emu.RecordSet{
		{Name: "keep." + zone, Type: "A", TTL: route53emu.NumberOf(300), ResourceRecords: &route53emu.ResourceRecords{Items: []route53emu.ResourceRecord{{Value: "192.0.2.50"}}}},
	}})
	bin := buildZonekeeper(t)
	const interval = 3 * time.Second

	labelled := func(name, shard, ip string) {
		svc := annotated(loadBalancer(name, "default", nil), "hostname", name+"."+zone)
		if shard != "" {
			svc.Labels = map[string]string{"dns-shard": shard}
		}
		e.createService(t, svc, ip)
	}
	labelled("web", "a", "10.70.0.1")
	labelled("api", "b", "10.70.0.2")
	labelled("mover", "a", "10.70.0.3")
	labelled("stray", "", "10.70.0.4") // matched by neither shard
	a := startShard(t, bin, kube.Kubeconfig, "a", interval, "--label-filter=dns-shard=a", "--domain-filter="+zone)
	b := startShard(t, bin, kube.Kubeconfig, "b", interval, "--label-filter=dns-shard=b", "--domain-filter="+zone)
	want := map[string]string{
		"keep." + zone + " A":      "192.0.2.50",
		"web." + zone + " A":       "10.70.0.1",
		"a-web." + zone + " TXT":   ownership("shard-a", "service/default/web"),
		"api." + zone + " A":       "10.70.0.2",
		"a-api." + zone + " TXT":   ownership("shard-b", "service/default/api"),
		"mover." + zone + " A":     "10.70.0.3",
		"a-mover." + zone + " TXT": ownership("shard-a", "service/default/mover"),
	}
	st := &awsStack{srv: srv}
	st.expectSets(t, converge, zone, want)
	expectTwoLeaders(t, kube, a, b)

	// mover is relabelled to shard b: shard a deletes its records, shard b creates its own.
	mover, err := e.client.CoreV1().Services("default").Get(context.Background(), "mover", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mover.Labels["dns-shard"] = "b"
	if _, err := e.client.CoreV1().Services("default").Update(context.Background(), mover, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	moved := time.Now()
	want["a-mover."+zone+" TXT"] = ownership("shard-b", "service/default/mover")
	st.expectSets(t, 3*interval+10*time.Second, zone, want)
	t.Logf("handed over from shard a to shard b in %s (--interval %s)", time.Since(moved).Round(100*time.Millisecond), interval)
	time.Sleep(interval + time.Second) // a resync of each: nothing moves back
	st.expectSets(t, time.Second, zone, want)

	expectPlannedOnly(t, map[string]map[string]bool{
		"a": {"CREATE web." + zone: true, "CREATE a-web." + zone: true, "CREATE mover." + zone: true, "CREATE a-mover." + zone: true,
			"DELETE mover." + zone: true, "DELETE a-mover." + zone: true},
		"b": {"CREATE api." + zone: true, "CREATE a-api." + zone: true, "CREATE mover." + zone: true, "CREATE a-mover." + zone: true},
	}, a, b)
	expectOnlyHandoverRefused(t, srv, b, "mover."+zone, a, b)
}

// expectPlannedOnly checks each shard's log of desired changes ("ACTION name", allowed by shard name):
// it planned no change outside allowed, and every allowed change but the ownership TXTs' (which may be
// logged or not).
func expectPlannedOnly(t *testing.T, allowed map[string]map[string]bool, shards ...*shardProcess) {
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
func expectOnlyHandoverRefused(t *testing.T, srv *route53emu.Server, taker *shardProcess, handedOver string, shards ...*shardProcess) {
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
