package route53emu_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	"github.com/aws/aws-sdk-go-v2/service/route53/types"

	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

// BenchmarkChangeResourceRecordSets1000 sends a batch of 1000 changes (the
// request limit) through the SDK, alternating CREATE and DELETE of the same
// sets so every iteration does full work.
func BenchmarkChangeResourceRecordSets1000(b *testing.B) {
	e := startEmu(b, route53emu.Options{})
	id := e.createZone(b, "example.com")
	creates := make([]types.Change, 1000)
	deletes := make([]types.Change, 1000)
	for i := range creates {
		rs := rrs(fmt.Sprintf("host-%04d.example.com", i), "A", 60, fmt.Sprintf("10.0.%d.%d", i/256, i%256))
		creates[i], deletes[i] = create(rs), del(rs)
	}
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		changes := creates
		if i%2 == 1 {
			changes = deletes
		}
		if _, err := e.r53.ChangeResourceRecordSets(ctx, &route53.ChangeResourceRecordSetsInput{HostedZoneId: aws.String(id), ChangeBatch: batch(changes...)}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkListResourceRecordSets300 reads one full page (300 sets) from a
// zone of 5000 sets through the SDK.
func BenchmarkListResourceRecordSets300(b *testing.B) {
	e := startEmu(b, route53emu.Options{})
	id := seedRecords(b, e, 5000)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, err := e.r53.ListResourceRecordSets(ctx, &route53.ListResourceRecordSetsInput{HostedZoneId: aws.String(id),
			StartRecordName: aws.String("r02000.example.com"), MaxItems: aws.Int32(300)})
		if err != nil || len(out.ResourceRecordSets) != 300 {
			b.Fatal(err)
		}
	}
}
