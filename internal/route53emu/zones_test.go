package route53emu_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	"github.com/aws/aws-sdk-go-v2/service/route53/types"

	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

func TestHostedZoneLifecycle(t *testing.T) {
	ctx := context.Background()
	e := startEmu(t, route53emu.Options{})
	out, err := e.r53.CreateHostedZone(ctx, &route53.CreateHostedZoneInput{Name: aws.String("Example.org"), CallerReference: aws.String("ref-1")})
	if err != nil {
		t.Fatal(err)
	}
	if *out.HostedZone.Name != "example.org." || out.HostedZone.Config != nil || len(out.DelegationSet.NameServers) != 4 ||
		out.ChangeInfo.Status != types.ChangeStatusInsync || aws.ToString(out.Location) != "https://route53.amazonaws.com/2013-04-01"+*out.HostedZone.Id {
		t.Fatalf("CreateHostedZone: %+v %+v location %v", out.HostedZone, out.ChangeInfo, aws.ToString(out.Location))
	}
	var re *awshttp.ResponseError
	_, err = e.r53.CreateHostedZone(ctx, &route53.CreateHostedZoneInput{Name: aws.String("other.org"), CallerReference: aws.String("ref-1")})
	var exists *types.HostedZoneAlreadyExists
	if !errors.As(err, &exists) || !errors.As(err, &re) || re.HTTPStatusCode() != http.StatusConflict {
		t.Fatalf("duplicate caller reference: %v", err)
	}
	priv, err := e.r53.CreateHostedZone(ctx, &route53.CreateHostedZoneInput{Name: aws.String("internal.example.org"), CallerReference: aws.String("ref-2"),
		HostedZoneConfig: &types.HostedZoneConfig{Comment: aws.String("private"), PrivateZone: true},
		VPC:              &types.VPC{VPCId: aws.String("vpc-123"), VPCRegion: types.VPCRegionEuWest1}})
	if err != nil || !priv.HostedZone.Config.PrivateZone || priv.DelegationSet != nil || aws.ToString(priv.VPC.VPCId) != "vpc-123" {
		t.Fatalf("private zone: %v %+v", err, priv)
	}
	got, err := e.r53.GetHostedZone(ctx, &route53.GetHostedZoneInput{Id: priv.HostedZone.Id})
	if err != nil || len(got.VPCs) != 1 || got.DelegationSet != nil || aws.ToInt64(got.HostedZone.ResourceRecordSetCount) != 2 {
		t.Fatalf("GetHostedZone private: %v %+v", err, got)
	}
	_, err = e.r53.GetHostedZone(ctx, &route53.GetHostedZoneInput{Id: aws.String("ZMISSING")})
	if code, msg := apiError(t, err); code != "NoSuchHostedZone" || msg != "No hosted zone found with ID: ZMISSING" {
		t.Fatalf("missing zone: %s %s", code, msg)
	}
	e.mustChange(t, *out.HostedZone.Id, create(rrs("www.example.org", "A", 60, "1.2.3.4")))
	_, err = e.r53.DeleteHostedZone(ctx, &route53.DeleteHostedZoneInput{Id: out.HostedZone.Id})
	if code, msg := apiError(t, err); code != "HostedZoneNotEmpty" || msg != "The specified hosted zone contains non-required resource record sets and so cannot be deleted." {
		t.Fatalf("delete non-empty zone: %s %s", code, msg)
	}
	e.mustChange(t, *out.HostedZone.Id, del(rrs("www.example.org", "A", 60, "1.2.3.4")))
	if _, err := e.r53.DeleteHostedZone(ctx, &route53.DeleteHostedZoneInput{Id: out.HostedZone.Id}); err != nil {
		t.Fatal(err)
	}
	list, err := e.r53.ListHostedZones(ctx, &route53.ListHostedZonesInput{})
	if err != nil || len(list.HostedZones) != 1 {
		t.Fatalf("after delete: %v %d zones", err, len(list.HostedZones))
	}
}

func TestReservedZoneNamesOnlyWithRealism(t *testing.T) {
	e := startEmu(t, route53emu.Options{RejectReservedNames: true})
	_, err := e.r53.CreateHostedZone(context.Background(), &route53.CreateHostedZoneInput{Name: aws.String("example.com"), CallerReference: aws.String("r")})
	if code, msg := apiError(t, err); code != "InvalidDomainName" || msg != "example.com is reserved by AWS!" {
		t.Fatalf("got %s %s", code, msg)
	}
}

func TestListHostedZonesPagination(t *testing.T) {
	ctx := context.Background()
	e := startEmu(t, route53emu.Options{})
	for i := 0; i < 7; i++ {
		e.createZone(t, fmt.Sprintf("z%d.example.net", i))
	}
	var n int
	p := route53.NewListHostedZonesPaginator(e.r53, &route53.ListHostedZonesInput{MaxItems: aws.Int32(3)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n += len(page.HostedZones)
	}
	if n != 7 {
		t.Fatalf("walked %d zones, want 7", n)
	}
	byName, err := e.r53.ListHostedZonesByName(ctx, &route53.ListHostedZonesByNameInput{DNSName: aws.String("z3.example.net"), MaxItems: aws.Int32(2)})
	if err != nil || len(byName.HostedZones) != 2 || *byName.HostedZones[0].Name != "z3.example.net." || aws.ToString(byName.NextDNSName) != "z5.example.net." || !byName.IsTruncated {
		t.Fatalf("by name: %v %+v", err, byName)
	}
}

func TestGetChangePropagation(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 678e6, time.UTC)
	e := startEmu(t, route53emu.Options{PropagationDelay: 30 * time.Second, Now: func() time.Time { return now }})
	id := e.createZone(t, "example.com")
	out, err := e.r53.ChangeResourceRecordSets(context.Background(), &route53.ChangeResourceRecordSetsInput{HostedZoneId: aws.String(id),
		ChangeBatch: &types.ChangeBatch{Comment: aws.String("why"), Changes: []types.Change{create(rrs("a.example.com", "A", 60, "1.2.3.4"))}}})
	if err != nil || out.ChangeInfo.Status != types.ChangeStatusPending || aws.ToString(out.ChangeInfo.Comment) != "why" || !out.ChangeInfo.SubmittedAt.Equal(now) {
		t.Fatalf("change: %v %+v", err, out.ChangeInfo)
	}
	get := func() types.ChangeStatus {
		g, err := e.r53.GetChange(context.Background(), &route53.GetChangeInput{Id: out.ChangeInfo.Id})
		if err != nil {
			t.Fatal(err)
		}
		return g.ChangeInfo.Status
	}
	if s := get(); s != types.ChangeStatusPending {
		t.Fatalf("at once: %s", s)
	}
	now = now.Add(30 * time.Second)
	if s := get(); s != types.ChangeStatusInsync {
		t.Fatalf("after the delay: %s", s)
	}
	_, err = e.r53.GetChange(context.Background(), &route53.GetChangeInput{Id: aws.String("/change/CNOPE")})
	var re *awshttp.ResponseError
	if code, msg := apiError(t, err); code != "NoSuchChange" || msg != "Could not find resource with ID: CNOPE" || !errors.As(err, &re) || re.HTTPStatusCode() != 404 {
		t.Fatalf("unknown change: %s %s", code, msg)
	}
}

func TestTags(t *testing.T) {
	ctx := context.Background()
	e := startEmu(t, route53emu.Options{})
	id := e.createZone(t, "example.com")
	bare := id[len("/hostedzone/"):]
	_, err := e.r53.ChangeTagsForResource(ctx, &route53.ChangeTagsForResourceInput{ResourceType: types.TagResourceTypeHostedzone, ResourceId: aws.String(bare),
		AddTags: []types.Tag{{Key: aws.String("env"), Value: aws.String("prod")}, {Key: aws.String("team"), Value: aws.String("dns")}}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.r53.ChangeTagsForResource(ctx, &route53.ChangeTagsForResourceInput{ResourceType: types.TagResourceTypeHostedzone, ResourceId: aws.String(id), RemoveTagKeys: []string{"team"}})
	if err != nil {
		t.Fatal(err)
	}
	one, err := e.r53.ListTagsForResource(ctx, &route53.ListTagsForResourceInput{ResourceType: types.TagResourceTypeHostedzone, ResourceId: aws.String(id)})
	if err != nil || len(one.ResourceTagSet.Tags) != 1 || *one.ResourceTagSet.Tags[0].Key != "env" {
		t.Fatalf("ListTagsForResource: %v %+v", err, one)
	}
	many, err := e.r53.ListTagsForResources(ctx, &route53.ListTagsForResourcesInput{ResourceType: types.TagResourceTypeHostedzone, ResourceIds: []string{bare}})
	if err != nil || len(many.ResourceTagSets) != 1 || *many.ResourceTagSets[0].ResourceId != bare {
		t.Fatalf("ListTagsForResources: %v %+v", err, many)
	}
	ids := make([]string, 11)
	for i := range ids {
		ids[i] = bare
	}
	_, err = e.r53.ListTagsForResources(ctx, &route53.ListTagsForResourcesInput{ResourceType: types.TagResourceTypeHostedzone, ResourceIds: ids})
	if code, _ := apiError(t, err); code != "InvalidInput" {
		t.Fatalf("11 ids: %s", code)
	}
	_, err = e.r53.ListTagsForResources(ctx, &route53.ListTagsForResourcesInput{ResourceType: types.TagResourceTypeHostedzone, ResourceIds: []string{"ZNOPE"}})
	if code, _ := apiError(t, err); code != "NoSuchHostedZone" {
		t.Fatalf("unknown zone: %s", code)
	}
}

func TestUnsignedRequestsAreRefused(t *testing.T) {
	e := startEmu(t, route53emu.Options{})
	resp, err := http.Get(e.url + "/2013-04-01/hostedzone")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get("x-amzn-RequestId") == "" {
		t.Fatalf("unsigned: %d", resp.StatusCode)
	}
}
