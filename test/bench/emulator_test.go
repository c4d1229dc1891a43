package bench

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	"github.com/aws/aws-sdk-go-v2/service/route53/types"
)

func sdkClient(url string) *route53.Client {
	return route53.New(route53.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(url),
		Credentials: credentials.NewStaticCredentialsProvider("AKIDBENCH", "bench-secret", ""),
	})
}

func upsertA(ctx context.Context, c *route53.Client, zoneID, name, ip string) error {
	_, err := c.ChangeResourceRecordSets(ctx, &route53.ChangeResourceRecordSetsInput{
		HostedZoneId: aws.String(zoneID),
		ChangeBatch: &types.ChangeBatch{Changes: []types.Change{{Action: types.ChangeActionUpsert, ResourceRecordSet: &types.ResourceRecordSet{
			Name: aws.String(name), Type: types.RRTypeA, TTL: aws.Int64(300), ResourceRecords: []types.ResourceRecord{{Value: aws.String(ip)}},
		}}}},
	})
	return err
}

func alive() error { return nil }

// The time await returns is when the change call that completed the zone returned, through the real
// SDK; a rejected change is not one; wipe empties the zone and the counters.
func TestEmulatorAwaitTakesTheTimeOfTheCompletingChange(t *testing.T) {
	e, err := startEmulator("ZBENCHTEST", "example.com")
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	c := sdkClient(e.URL())
	want := map[string]string{"a.example.com": "10.0.0.1", "b.example.com": "10.0.0.2"}

	if _, _, err := e.await(ctx, 300*time.Millisecond, alive, allAddresses(want)); err == nil || !strings.Contains(err.Error(), "0 of 2 A records") {
		t.Fatalf("an empty zone: %v", err)
	}
	if err := upsertA(ctx, c, "ZBENCHTEST", "a.example.com", "10.0.0.1"); err != nil {
		t.Fatal(err)
	}
	// Rejected (outside the zone): must not count as the completing change.
	if err := upsertA(ctx, c, "ZBENCHTEST", "b.example.org", "10.0.0.2"); err == nil {
		t.Fatal("the emulator took a name outside the zone")
	}
	time.Sleep(50 * time.Millisecond)
	before := time.Now()
	go func() {
		time.Sleep(100 * time.Millisecond)
		_ = upsertA(ctx, c, "ZBENCHTEST", "b.example.com", "10.0.0.2")
	}()
	at, calls, err := e.await(ctx, 5*time.Second, alive, allAddresses(want))
	if err != nil {
		t.Fatal(err)
	}
	if at.Before(before.Add(100*time.Millisecond)) || time.Since(at) > 2*time.Second {
		t.Errorf("completing change at %v, started waiting at %v", at, before)
	}
	if calls["ChangeResourceRecordSets"] != 3 {
		t.Errorf("calls when the zone was complete: %v (want three changes, one rejected)", calls)
	}
	if _, _, err := e.await(ctx, time.Second, alive, address("b.example.com", "10.0.0.2")); err != nil {
		t.Error(err)
	}
	if _, _, err := e.await(ctx, 100*time.Millisecond, alive, address("b.example.com", "10.9.9.9")); err == nil || !strings.Contains(err.Error(), "holds [10.0.0.2], want 10.9.9.9") {
		t.Errorf("a wrong value: %v", err)
	}
	gone := errors.New("tool exited")
	if _, _, err := e.await(ctx, time.Minute, func() error { return gone }, address("c.example.com", "10.0.0.3")); !errors.Is(err, gone) {
		t.Errorf("a dead tool: %v", err)
	}

	if err := e.wipe(); err != nil {
		t.Fatal(err)
	}
	if n := len(e.sets()); n != 0 || len(e.calls()) != 0 {
		t.Errorf("after wipe: %d sets, calls %v", n, e.calls())
	}
	if err := upsertA(ctx, c, "ZBENCHTEST", "a.example.com", "10.0.0.1"); err != nil {
		t.Fatalf("the zone id did not survive the wipe: %v", err)
	}
}
