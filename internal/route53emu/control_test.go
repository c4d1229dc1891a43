package route53emu_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/route53"

	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

func control(t *testing.T, e *emu, method, path, body string, out any) int {
	t.Helper()
	req, err := http.NewRequest(method, e.url+"/_emulator/"+path, bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
	}
	return resp.StatusCode
}

func TestControlAPI(t *testing.T) {
	e := startEmu(t, route53emu.Options{})
	var seeded []route53emu.SeededZone
	if st := control(t, e, "POST", "seed", `{"zones":[{"name":"example.net","records":[{"name":"a.example.net","type":"A","ttl":60,"resourceRecords":["192.0.2.1"]}]}]}`, &seeded); st != 200 || len(seeded) != 1 {
		t.Fatalf("seed: %d %+v", st, seeded)
	}
	if st := control(t, e, "POST", "seed", `{"zones":[{"name":"bad.net","records":[{"name":"a.example.net","type":"A","ttl":60,"resourceRecords":["192.0.2.1"]}]}]}`, nil); st != 400 {
		t.Fatalf("seed with a record outside its zone: %d", st)
	}
	if st := control(t, e, "POST", "faults", `{"operation":"GetHostedZone","code":"AccessDenied","count":1}`, nil); st != 200 {
		t.Fatalf("faults: %d", st)
	}
	client := newClient(e.url, fastRetries)
	_, err := client.GetHostedZone(context.Background(), &route53.GetHostedZoneInput{Id: aws.String(seeded[0].ID)})
	if code, _ := apiError(t, err); code != "AccessDenied" {
		t.Fatalf("injected AccessDenied: %v", err)
	}
	if _, err := client.GetHostedZone(context.Background(), &route53.GetHostedZoneInput{Id: aws.String(seeded[0].ID)}); err != nil {
		t.Fatalf("fault with count 1 fired again: %v", err)
	}
	var calls []route53emu.Call
	control(t, e, "GET", "calls", "", &calls)
	if len(calls) != 2 || calls[0].ErrorCode != "AccessDenied" || calls[0].Status != 403 || calls[1].Status != 200 {
		t.Fatalf("calls %+v", calls)
	}
	if st := control(t, e, "PUT", "propagation-delay", `{"delay":"-1s"}`, nil); st != 400 {
		t.Fatalf("negative delay accepted: %d", st)
	}
	control(t, e, "POST", "reset", "", nil)
	var zones []route53emu.ZoneDump
	control(t, e, "GET", "zones", "", &zones)
	if len(zones) != 0 {
		t.Fatalf("after reset: %d zones", len(zones))
	}
}
