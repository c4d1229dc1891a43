package e2e

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	const zone = "labels.test"
	e, srv, bin := startShardingBed(t, withForeignRecord(zone))
	labelled := func(name, shard, ip string) string {
		svc := annotated(loadBalancer(name, "default", nil), "hostname", name+"."+zone)
		if shard != "" {
			svc.Labels = map[string]string{"dns-shard": shard}
		}
		e.createService(t, svc, ip)
		return "service/default/" + name
	}
	labelled("stray", "", "10.70.0.9") // matched by neither shard: published by neither
	testShardsShareOneZone(t, e, srv, bin, oneZoneSplit{
		zone: zone, subnet: "10.70.0.",
		flags:  func(shard string) string { return "--label-filter=dns-shard=" + shard },
		create: labelled,
		// The Service is relabelled, its address kept.
		move: func(name, ip string) (string, string) {
			svc, err := e.client.CoreV1().Services("default").Get(context.Background(), name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			svc.Labels["dns-shard"] = "b"
			if _, err := e.client.CoreV1().Services("default").Update(context.Background(), svc, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			return "service/default/" + name, ip
		},
	})
}
