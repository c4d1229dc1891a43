package route53emu_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	"github.com/aws/aws-sdk-go-v2/service/route53/types"
	"github.com/aws/smithy-go"

	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

// emu is an emulator on a loopback port plus a real SDK client pointed at it.
type emu struct {
	srv *route53emu.Server
	url string
	r53 *route53.Client
}

func startEmu(t testing.TB, opts route53emu.Options) *emu {
	t.Helper()
	srv := route53emu.New(opts)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return &emu{srv: srv, url: hs.URL, r53: newClient(hs.URL)}
}

func newClient(url string, optFns ...func(*route53.Options)) *route53.Client {
	cfg := aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", ""),
	}
	return route53.NewFromConfig(cfg, append([]func(*route53.Options){func(o *route53.Options) {
		o.BaseEndpoint = aws.String(url)
	}}, optFns...)...)
}

func (e *emu) createZone(t testing.TB, name string) string {
	t.Helper()
	out, err := e.r53.CreateHostedZone(context.Background(), &route53.CreateHostedZoneInput{
		Name: aws.String(name), CallerReference: aws.String(name + "-" + t.Name()),
	})
	if err != nil {
		t.Fatalf("CreateHostedZone %s: %v", name, err)
	}
	return *out.HostedZone.Id
}

func (e *emu) change(zoneID string, changes ...types.Change) error {
	_, err := e.r53.ChangeResourceRecordSets(context.Background(), &route53.ChangeResourceRecordSetsInput{
		HostedZoneId: aws.String(zoneID),
		ChangeBatch:  &types.ChangeBatch{Changes: changes},
	})
	return err
}

func (e *emu) mustChange(t testing.TB, zoneID string, changes ...types.Change) {
	t.Helper()
	if err := e.change(zoneID, changes...); err != nil {
		t.Fatalf("ChangeResourceRecordSets: %v", err)
	}
}

func (e *emu) listAll(t testing.TB, zoneID string) []types.ResourceRecordSet {
	t.Helper()
	var out []types.ResourceRecordSet
	p := route53.NewListResourceRecordSetsPaginator(e.r53, &route53.ListResourceRecordSetsInput{HostedZoneId: aws.String(zoneID), MaxItems: aws.Int32(300)})
	for pages := 0; p.HasMorePages(); pages++ {
		if pages > 1000 {
			t.Fatalf("ListResourceRecordSets: pagination does not end")
		}
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatalf("ListResourceRecordSets: %v", err)
		}
		out = append(out, page.ResourceRecordSets...)
	}
	return out
}

// apiError returns the code and message of an AWS error.
func apiError(t testing.TB, err error) (string, string) {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("want an AWS API error, got %v", err)
	}
	return ae.ErrorCode(), ae.ErrorMessage()
}

func rrs(name string, typ types.RRType, ttl int64, values ...string) *types.ResourceRecordSet {
	rs := &types.ResourceRecordSet{Name: aws.String(name), Type: typ, TTL: aws.Int64(ttl)}
	for _, v := range values {
		rs.ResourceRecords = append(rs.ResourceRecords, types.ResourceRecord{Value: aws.String(v)})
	}
	return rs
}

func create(rs *types.ResourceRecordSet) types.Change {
	return types.Change{Action: types.ChangeActionCreate, ResourceRecordSet: rs}
}
func upsert(rs *types.ResourceRecordSet) types.Change {
	return types.Change{Action: types.ChangeActionUpsert, ResourceRecordSet: rs}
}
func del(rs *types.ResourceRecordSet) types.Change {
	return types.Change{Action: types.ChangeActionDelete, ResourceRecordSet: rs}
}

func withID(rs *types.ResourceRecordSet, id string) *types.ResourceRecordSet {
	rs.SetIdentifier = aws.String(id)
	return rs
}

func weighted(rs *types.ResourceRecordSet, id string, w int64) *types.ResourceRecordSet {
	rs.SetIdentifier = aws.String(id)
	rs.Weight = aws.Int64(w)
	return rs
}

func alias(name string, typ types.RRType, zoneID, target string, eth bool) *types.ResourceRecordSet {
	return &types.ResourceRecordSet{Name: aws.String(name), Type: typ, AliasTarget: &types.AliasTarget{
		HostedZoneId: aws.String(zoneID), DNSName: aws.String(target), EvaluateTargetHealth: eth}}
}

func batch(changes ...types.Change) *types.ChangeBatch { return &types.ChangeBatch{Changes: changes} }
