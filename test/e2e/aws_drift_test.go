package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"

	"github.com/zonekeeper/zonekeeper/internal/controller"
	awsprovider "github.com/zonekeeper/zonekeeper/internal/provider/aws"
	"github.com/zonekeeper/zonekeeper/internal/registry/txt"
	"github.com/zonekeeper/zonekeeper/internal/route53emu"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// Issue 16, drift detection that costs little: the documented bounds (docs/api-budget.md) are a record
// set added or deleted behind our back healed within one --interval (the zone probe, GetHostedZone's
// ResourceRecordSetCount, sees it) and an in-place edit of a record we own within the relisting period
// (--provider-cache-time, by default the period at which a full listing spends 1 % of the account's
// rate: 20 s for this one-page zone at 5 requests/s) plus one --interval. A foreign record added out
// of band is never touched. The zone is changed through the real aws-sdk-go-v2, as a user would.
func TestAWSDriftHealedWithinTheDocumentedBound(t *testing.T) {
	awsCredentials(t)
	kube := testbed.StartKubeAPIServer(t)
	e := &env{kube: kube, client: kube.Client(t)}
	srv := startEmulator(t, route53emu.Options{RateLimit: 5}, route53emu.SeedZone{Name: awsZone})
	zoneID := srv.Dump()[0].ID
	want := map[string]string{}
	for i, host := range []string{"one", "two", "three"} {
		ip := fmt.Sprintf("10.40.0.%d", i+1)
		e.createService(t, annotated(loadBalancer(host, "default", nil), "hostname", host+"."+awsZone), ip)
		want[host+"."+awsZone+" A"] = ip
		want["a-"+host+"."+awsZone+" TXT"] = ownership("e2e", "service/default/"+host)
	}
	const interval = 2 * time.Second
	relist := 20 * time.Second // pacing.RelistPeriod(1 page, 5 requests/s)
	st := startAWSWith(t, e, srv, txt.Config{}, awsprovider.Config{}, func(s *controller.Settings) { s.Interval = interval })
	st.expectSets(t, converge, awsZone, want)
	api := userClient(t)

	heal := func(what string, bound time.Duration, change func()) time.Duration {
		t.Helper()
		change()
		start := time.Now()
		st.expectSets(t, bound+5*time.Second, awsZone, want)
		took := time.Since(start)
		t.Logf("%s healed in %s (bound %s)", what, took.Round(100*time.Millisecond), bound)
		if took > bound+time.Second {
			t.Errorf("%s healed in %s, beyond the documented bound %s", what, took, bound)
		}
		return took
	}
	// Out-of-band delete of a record we own and of its ownership TXT.
	heal("delete of an owned record set", interval, func() {
		change(t, api, zoneID, rrChange(r53types.ChangeActionDelete, "one."+awsZone, r53types.RRTypeA, "10.40.0.1"))
	})
	// A foreign record appears: it is seen (the count changed) and left alone.
	change(t, api, zoneID, rrChange(r53types.ChangeActionCreate, "manual."+awsZone, r53types.RRTypeA, "192.0.2.77"))
	want["manual."+awsZone+" A"] = "192.0.2.77"
	// Out-of-band create of records in our name (a record and its ownership TXT no object asks for):
	// ours, so the sync deletes them.
	heal("create of an owned record set", interval, func() {
		change(t, api, zoneID, rrChange(r53types.ChangeActionCreate, "stale."+awsZone, r53types.RRTypeA, "10.40.9.9"),
			rrChange(r53types.ChangeActionCreate, "a-stale."+awsZone, r53types.RRTypeTxt, ownership("e2e", "service/default/stale")))
	})
	// In-place edit of an owned record: the count stays, the relisting finds it.
	heal("in-place edit of an owned record", relist+interval, func() {
		change(t, api, zoneID, rrChange(r53types.ChangeActionUpsert, "two."+awsZone, r53types.RRTypeA, "192.0.2.66"))
	})

	// Idle: one GetHostedZone per interval, no listing until the relisting is due.
	srv.ClearCalls()
	time.Sleep(3 * interval)
	idle := callsByOperation(srv)
	t.Logf("idle for %s: calls %v", 3*interval, idle)
	if idle["GetHostedZone"] < 2 || idle["GetHostedZone"] > 4 || idle["ChangeResourceRecordSets"] != 0 {
		t.Errorf("idle calls %v: want one GetHostedZone per %s and no write", idle, interval)
	}
	st.expectSets(t, time.Second, awsZone, want) // the foreign record is untouched
	t.Logf("emulator errors over the test (the user's calls share the account's 5 requests/s): %v; zonekeeper's limiter saw %d throttles", srv.Counters().Errors, st.prov.Limiter().Throttles())
}

// Issue 11: one zone that cannot be listed (AccessDenied on ListResourceRecordSets) is left out of
// planning: the other zone converges, nothing is created in the unreadable zone and our record there
// (no longer asked for) is not deleted; the log names the zone. Once access returns, the next probe
// lists it and it converges too.
func TestAWSUnreadableZoneLeftOut(t *testing.T) {
	awsCredentials(t)
	kube := testbed.StartKubeAPIServer(t)
	e := &env{kube: kube, client: kube.Client(t)}
	const good, denied = "good.test", "denied.test"
	oldValue := ownership("e2e", "service/default/old")
	srv := startEmulator(t, route53emu.Options{}, route53emu.SeedZone{Name: good}, route53emu.SeedZone{Name: denied, Records: []route53emu.RecordSet{
		{Name: "old." + denied, Type: "A", TTL: route53emu.NumberOf(300), ResourceRecords: &route53emu.ResourceRecords{Items: []route53emu.ResourceRecord{{Value: "10.41.0.9"}}}},
		{Name: "a-old." + denied, Type: "TXT", TTL: route53emu.NumberOf(300), ResourceRecords: &route53emu.ResourceRecords{Items: []route53emu.ResourceRecord{{Value: oldValue}}}},
	}})
	var deniedID string
	for _, z := range srv.Dump() {
		if strings.TrimSuffix(z.Name, ".") == denied {
			deniedID = z.ID
		}
	}
	if err := srv.AddFault(route53emu.Fault{Operation: "ListResourceRecordSets", ZoneID: deniedID, Code: "AccessDenied"}); err != nil {
		t.Fatal(err)
	}
	e.createService(t, annotated(loadBalancer("web", "default", nil), "hostname", "web."+good+",web."+denied), "10.41.0.1")
	const interval = 2 * time.Second
	st := startAWSWith(t, e, srv, txt.Config{}, awsprovider.Config{}, func(s *controller.Settings) { s.Interval = interval }, good, denied)
	st.expectSets(t, converge, good, map[string]string{"web." + good + " A": "10.41.0.1", "a-web." + good + " TXT": ownership("e2e", "service/default/web")})
	deniedBefore := map[string]string{"old." + denied + " A": "10.41.0.9", "a-old." + denied + " TXT": oldValue}
	time.Sleep(2 * interval)
	if got := st.sets(denied); fmt.Sprint(got) != fmt.Sprint(deniedBefore) {
		t.Fatalf("the unreadable zone was written: %v", got)
	}
	if logs := st.logs.String(); !strings.Contains(logs, "Zone left out of planning") || !strings.Contains(logs, "zone="+denied) {
		t.Fatalf("no log line names the unreadable zone:\n%s", tail(logs, 3000))
	}
	if !st.running() {
		t.Fatal("the controller stopped")
	}
	srv.ClearFaults()
	st.expectSets(t, 3*interval+5*time.Second, denied, map[string]string{"web." + denied + " A": "10.41.0.1", "a-web." + denied + " TXT": ownership("e2e", "service/default/web")})
}

// userClient is a Route 53 client of the same account, as the AWS CLI or a console user would change
// the zone: through the real SDK, past zonekeeper's cache.
func userClient(t *testing.T) *route53.Client {
	t.Helper()
	cfg, err := config.LoadDefaultConfig(context.Background(), config.WithRegion("us-east-1"))
	if err != nil {
		t.Fatal(err)
	}
	return route53.NewFromConfig(cfg, func(o *route53.Options) { o.BaseEndpoint = ptrTo(os.Getenv("AWS_ENDPOINT_URL_ROUTE_53")) })
}

func ptrTo[T any](v T) *T { return &v }

// change sends one ChangeResourceRecordSets of the given changes.
func change(t *testing.T, api *route53.Client, zoneID string, changes ...r53types.Change) {
	t.Helper()
	_, err := api.ChangeResourceRecordSets(context.Background(), &route53.ChangeResourceRecordSetsInput{
		HostedZoneId: ptrTo(zoneID), ChangeBatch: &r53types.ChangeBatch{Changes: changes},
	})
	if err != nil {
		t.Fatalf("out-of-band change: %v", err)
	}
}

func rrChange(action r53types.ChangeAction, name string, rtype r53types.RRType, value string) r53types.Change {
	return r53types.Change{Action: action, ResourceRecordSet: &r53types.ResourceRecordSet{
		Name: ptrTo(name), Type: rtype, TTL: ptrTo(int64(300)), ResourceRecords: []r53types.ResourceRecord{{Value: ptrTo(value)}},
	}}
}
