package route53emu_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/route53"

	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

// fastRetries keeps the SDK's standard retryer (and so its decision which
// errors to retry) but without the backoff sleep.
func fastRetries(o *route53.Options) {
	o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) {
		so.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
	})
}

func attempts(calls []route53emu.Call, op string) []int {
	var out []int
	for _, c := range calls {
		if c.Operation == op {
			out = append(out, c.Attempt)
		}
	}
	return out
}

func TestInjectedFaultsAndTheSDKRetryer(t *testing.T) {
	cases := []struct {
		fault    route53emu.Fault
		wantErr  string // "" = the call finally succeeds
		attempts int
		status   int
	}{
		{fault: route53emu.Fault{Code: "Throttling", Count: 2}, attempts: 3},
		{fault: route53emu.Fault{Code: "Throttling"}, wantErr: "Throttling", attempts: 3, status: 400},
		{fault: route53emu.Fault{Code: "PriorRequestNotComplete"}, wantErr: "PriorRequestNotComplete", attempts: 3, status: 400},
		{fault: route53emu.Fault{Code: "InternalError", Count: 1}, attempts: 2},
		{fault: route53emu.Fault{Code: "ServiceUnavailable"}, wantErr: "ServiceUnavailable", attempts: 3, status: 503},
		{fault: route53emu.Fault{Code: "AccessDenied"}, wantErr: "AccessDenied", attempts: 1, status: 403},
	}
	for _, tc := range cases {
		t.Run(tc.fault.Code, func(t *testing.T) {
			e := startEmu(t, route53emu.Options{})
			zoneID := e.createZone(t, "example.com")
			client := newClient(e.url, fastRetries)
			f := tc.fault
			f.Operation = "ListResourceRecordSets"
			if err := e.srv.AddFault(f); err != nil {
				t.Fatal(err)
			}
			_, err := client.ListResourceRecordSets(context.Background(), &route53.ListResourceRecordSetsInput{HostedZoneId: aws.String(zoneID)})
			got := attempts(e.srv.Calls(), "ListResourceRecordSets")
			if len(got) != tc.attempts || got[0] != 1 || got[len(got)-1] != tc.attempts {
				t.Fatalf("attempts seen by the emulator %v, want 1..%d", got, tc.attempts)
			}
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("want success after retries, got %v", err)
				}
				return
			}
			code, msg := apiError(t, err)
			var re *awshttp.ResponseError
			if code != tc.wantErr || !errors.As(err, &re) || re.HTTPStatusCode() != tc.status {
				t.Fatalf("got %s (%v), want %s with HTTP %d", code, err, tc.wantErr, tc.status)
			}
			switch code {
			case "Throttling":
				if msg != "Rate exceeded" {
					t.Fatalf("message %q", msg)
				}
			case "PriorRequestNotComplete":
				if msg != "The request was rejected because Route 53 was still processing a prior request." {
					t.Fatalf("message %q", msg)
				}
			case "AccessDenied":
				if want := "User: arn:aws:iam::123456789012:user/AKIDEXAMPLE is not authorized to perform: route53:ListResourceRecordSets on resource: arn:aws:route53:::hostedzone/" + zoneID[len("/hostedzone/"):]; msg != want {
					t.Fatalf("message %q, want %q", msg, want)
				}
			}
		})
	}
}

func TestRateLimitPerAccount(t *testing.T) {
	now := time.Unix(1700000000, 0)
	e := startEmu(t, route53emu.Options{RateLimit: 5, Now: func() time.Time { return now }})
	client := newClient(e.url, fastRetries)
	ctx := context.Background()
	for i := 0; i < 5; i++ { // the burst
		if _, err := client.ListHostedZones(ctx, &route53.ListHostedZonesInput{}); err != nil {
			t.Fatalf("request %d within the quota: %v", i, err)
		}
	}
	_, err := client.ListHostedZones(ctx, &route53.ListHostedZonesInput{})
	if code, _ := apiError(t, err); code != "Throttling" {
		t.Fatalf("6th request in the same instant: %v", err)
	}
	if c := e.srv.Counters(); c.Errors["ListHostedZones:Throttling"] != 3 || c.Calls["ListHostedZones"] != 8 {
		t.Fatalf("counters %+v, want 3 throttled attempts of 8", c)
	}
	now = now.Add(time.Second / 5)
	if _, err := client.ListHostedZones(ctx, &route53.ListHostedZonesInput{}); err != nil {
		t.Fatalf("after 200ms one token is back: %v", err)
	}
}

func TestBusyZoneWhilePending(t *testing.T) {
	now := time.Unix(1700000000, 0)
	e := startEmu(t, route53emu.Options{BusyWhilePending: true, PropagationDelay: time.Minute, Now: func() time.Time { return now }})
	id := e.createZone(t, "example.com")
	e.mustChange(t, id, create(rrs("a.example.com", "A", 60, "1.2.3.4")))
	client := newClient(e.url, func(o *route53.Options) { o.RetryMaxAttempts = 1 })
	_, err := client.ChangeResourceRecordSets(context.Background(), &route53.ChangeResourceRecordSetsInput{HostedZoneId: aws.String(id),
		ChangeBatch: batch(create(rrs("b.example.com", "A", 60, "1.2.3.4")))})
	if code, _ := apiError(t, err); code != "PriorRequestNotComplete" {
		t.Fatalf("second change while pending: %v", err)
	}
	now = now.Add(time.Minute)
	e.mustChange(t, id, create(rrs("b.example.com", "A", 60, "1.2.3.4")))
}
