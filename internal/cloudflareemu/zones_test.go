package cloudflareemu

import (
	"context"
	"net/http"
	"testing"

	cloudflare "github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/zones"
)

func TestZonesListFiltersAndGet(t *testing.T) {
	env := newEnv(t, Options{})
	seeded, err := env.srv.Seed(Seed{Zones: []SeedZone{
		{Name: "example.org", Plan: "pro", AccountID: "11111111111111111111111111111111"},
		{Name: "sub.example.org", Status: "pending"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	page, err := env.client.Zones.List(ctx, zones.ZoneListParams{Name: cloudflare.F("example.org")})
	if err != nil || len(page.Result) != 1 || page.Result[0].ID != seeded[0].ID || !page.Result[0].Plan.IsSubscribed {
		t.Fatalf("name filter: %+v %v", page, err)
	}
	page, err = env.client.Zones.List(ctx, zones.ZoneListParams{Status: cloudflare.F(zones.ZoneListParamsStatusPending)})
	if err != nil || len(page.Result) != 1 || page.Result[0].Name != "sub.example.org" {
		t.Fatalf("status filter: %+v %v", page, err)
	}
	page, err = env.client.Zones.List(ctx, zones.ZoneListParams{Account: cloudflare.F(zones.ZoneListParamsAccount{ID: cloudflare.F("11111111111111111111111111111111")})})
	if err != nil || len(page.Result) != 1 || page.Result[0].Name != "example.org" {
		t.Fatalf("account.id filter: %+v %v", page, err)
	}
	status, e := env.do(t, http.MethodGet, APIPrefix+"zones?name=ends_with:example.org", nil)
	if status != 200 || e.ResultInfo.TotalCount != 2 {
		t.Fatalf("name=ends_with: %d %s", status, e.raw)
	}
	z, err := env.client.Zones.Get(ctx, zones.ZoneGetParams{ZoneID: cloudflare.F(env.zoneID)})
	if err != nil || z.Name != "example.com" || z.Status != zones.ZoneStatusActive || z.Plan.IsSubscribed {
		t.Fatalf("get: %+v %v", z, err)
	}
	_, err = env.client.Zones.Get(ctx, zones.ZoneGetParams{ZoneID: cloudflare.F(newID())})
	if status, code := sdkErrorCode(t, err); status != 404 || code != CodeCouldNotRoute {
		t.Fatalf("unknown zone: %d %d", status, code)
	}
	for i := 0; i < 25; i++ {
		if _, err := env.srv.AddZone("z" + string(rune('a'+i)) + ".test"); err != nil {
			t.Fatal(err)
		}
	}
	iter := env.client.Zones.ListAutoPaging(ctx, zones.ZoneListParams{})
	n := 0
	for iter.Next() {
		n++
	}
	if iter.Err() != nil || n != 28 {
		t.Fatalf("auto-paging zones: %d %v", n, iter.Err())
	}
}

func TestUnroutedAndAuth(t *testing.T) {
	env := newEnv(t, Options{APITokens: []string{"test-token"}})
	status, e := env.do(t, http.MethodGet, APIPrefix+"zones/"+env.zoneID+"/firewall/rules", nil)
	if status != 404 || e.Success || len(e.Errors) != 2 || e.Errors[0].Code != CodeCouldNotRoute || e.Errors[1].Code != CodeNoRoute {
		t.Fatalf("unknown path: %d %s", status, e.raw)
	}
	status, e = env.do(t, http.MethodDelete, APIPrefix+"zones", nil)
	if status != 405 || e.code() != CodeMethodNotAllowed {
		t.Fatalf("wrong method: %d %s", status, e.raw)
	}
	status, e = env.do(t, http.MethodGet, "/client/v3/zones", nil)
	if status != 404 || e.code() != CodeCouldNotRoute {
		t.Fatalf("outside /client/v4: %d %s", status, e.raw)
	}
	req, _ := http.NewRequest(http.MethodGet, env.http.URL+APIPrefix+"zones", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Fatalf("no credentials: %d", resp.StatusCode)
	}
	req.Header.Set("Authorization", "Bearer wrong")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Fatalf("wrong token: %d", resp.StatusCode)
	}
	c := env.srv.Counters()
	if c.Calls[OpUnrouted] != 3 || c.Errors[OpZonesList+":10000"] != 1 || c.Errors[OpZonesList+":9106"] != 1 {
		t.Fatalf("counters: %+v", c)
	}
}
