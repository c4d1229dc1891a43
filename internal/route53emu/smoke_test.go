package route53emu_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	"github.com/aws/aws-sdk-go-v2/service/route53/types"

	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

func TestSmoke(t *testing.T) {
	e := startEmu(t, route53emu.Options{})
	id := e.createZone(t, "Example.ORG")
	e.mustChange(t, id, create(rrs("*.Example.org", types.RRTypeA, 60, "1.2.3.4")))
	got := e.listAll(t, id)
	for _, s := range got {
		t.Logf("%s %s %v %v", *s.Name, s.Type, aws.ToInt64(s.TTL), s.ResourceRecords)
	}
	_, err := e.r53.GetHostedZone(context.Background(), &route53.GetHostedZoneInput{Id: aws.String(id)})
	if err != nil {
		t.Fatal(err)
	}
	err = e.change(id, create(rrs("*.Example.org", types.RRTypeA, 60, "1.2.3.4")), create(rrs("x.example.org", types.RRTypeA, 60, "1.2.3")))
	t.Log(err)
}
