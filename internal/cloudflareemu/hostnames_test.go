package cloudflareemu

import (
	"context"
	"testing"

	cloudflare "github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/addressing"
	"github.com/cloudflare/cloudflare-go/v7/custom_hostnames"
	"github.com/cloudflare/cloudflare-go/v7/option"
)

// TestCustomHostnamesAsExternalDNSUsesThem creates, lists (with the hostname
// filter and auto-paging) and deletes custom hostnames the way external-dns
// v0.23 does, including custom_origin_server set with WithJSONSet.
func TestCustomHostnamesAsExternalDNSUsesThem(t *testing.T) {
	env := newEnv(t, Options{})
	ctx := context.Background()
	ch, err := env.client.CustomHostnames.New(ctx, custom_hostnames.CustomHostnameNewParams{
		ZoneID: cloudflare.F(env.zoneID), Hostname: cloudflare.F("shop.customer.net"),
		SSL: cloudflare.F(custom_hostnames.CustomHostnameNewParamsSSL{
			Method: cloudflare.F(custom_hostnames.DCVMethodHTTP), Type: cloudflare.F(custom_hostnames.DomainValidationTypeDv),
			Settings: cloudflare.F(custom_hostnames.CustomHostnameNewParamsSSLSettings{
				MinTLSVersion: cloudflare.F(custom_hostnames.CustomHostnameNewParamsSSLSettingsMinTLSVersion1_2)}),
		}),
	}, option.WithJSONSet("custom_origin_server", "origin.example.com"))
	if err != nil {
		t.Fatal(err)
	}
	if ch.Hostname != "shop.customer.net" || ch.CustomOriginServer != "origin.example.com" || ch.SSL.Method != "http" || ch.Status != "pending" {
		t.Fatalf("created: %+v", ch)
	}
	if _, err := env.client.CustomHostnames.New(ctx, custom_hostnames.CustomHostnameNewParams{
		ZoneID: cloudflare.F(env.zoneID), Hostname: cloudflare.F("shop.customer.net")}); err == nil {
		t.Fatal("a duplicate custom hostname must be refused")
	} else if status, code := sdkErrorCode(t, err); status != 409 || code != CodeHostnameExists {
		t.Fatalf("duplicate: %d %d", status, code)
	}
	for _, h := range []string{"a.customer.net", "b.customer.net", "c.customer.net", "d.customer.net", "e.customer.net", "f.customer.net"} {
		if _, err := env.client.CustomHostnames.New(ctx, custom_hostnames.CustomHostnameNewParams{
			ZoneID: cloudflare.F(env.zoneID), Hostname: cloudflare.F(h)}); err != nil {
			t.Fatal(err)
		}
	}
	iter := env.client.CustomHostnames.ListAutoPaging(ctx, custom_hostnames.CustomHostnameListParams{ZoneID: cloudflare.F(env.zoneID), PerPage: cloudflare.F(5.0)})
	n := 0
	for iter.Next() {
		n++
	}
	if iter.Err() != nil || n != 7 {
		t.Fatalf("auto-paging custom hostnames: %d %v", n, iter.Err())
	}
	page, err := env.client.CustomHostnames.List(ctx, custom_hostnames.CustomHostnameListParams{
		ZoneID: cloudflare.F(env.zoneID), Hostname: cloudflare.F(custom_hostnames.CustomHostnameListParamsHostname{Exact: cloudflare.F("shop.customer.net")})})
	if err != nil || len(page.Result) != 1 || page.Result[0].ID != ch.ID {
		t.Fatalf("hostname.exact filter: %+v %v", page, err)
	}
	del, err := env.client.CustomHostnames.Delete(ctx, ch.ID, custom_hostnames.CustomHostnameDeleteParams{ZoneID: cloudflare.F(env.zoneID)})
	if err != nil || del.ID != ch.ID {
		t.Fatalf("delete: %+v %v", del, err)
	}
	if _, err := env.client.CustomHostnames.Get(ctx, ch.ID, custom_hostnames.CustomHostnameGetParams{ZoneID: cloudflare.F(env.zoneID)}); err == nil {
		t.Fatal("deleted custom hostname still found")
	}
	if d := env.srv.Dump(); len(d[0].CustomHostnames) != 6 {
		t.Fatalf("dump: %+v", d[0].CustomHostnames)
	}
}

func TestRegionalHostnames(t *testing.T) {
	env := newEnv(t, Options{})
	ctx := context.Background()
	rh := env.client.Addressing.RegionalHostnames
	created, err := rh.New(ctx, addressing.RegionalHostnameNewParams{ZoneID: cloudflare.F(env.zoneID), Hostname: cloudflare.F("eu.example.com"), RegionKey: cloudflare.F("eu")})
	if err != nil || created.Hostname != "eu.example.com" || created.RegionKey != "eu" || created.Routing != "dns" {
		t.Fatalf("new: %+v %v", created, err)
	}
	if _, err := rh.New(ctx, addressing.RegionalHostnameNewParams{ZoneID: cloudflare.F(env.zoneID), Hostname: cloudflare.F("x.other.org"), RegionKey: cloudflare.F("eu")}); err == nil {
		t.Fatal("a hostname outside the zone must be refused")
	}
	edited, err := rh.Edit(ctx, "eu.example.com", addressing.RegionalHostnameEditParams{ZoneID: cloudflare.F(env.zoneID), RegionKey: cloudflare.F("ca")})
	if err != nil || edited.RegionKey != "ca" {
		t.Fatalf("edit: %+v %v", edited, err)
	}
	iter := rh.ListAutoPaging(ctx, addressing.RegionalHostnameListParams{ZoneID: cloudflare.F(env.zoneID)})
	var got []string
	for iter.Next() {
		got = append(got, iter.Current().Hostname+"="+iter.Current().RegionKey)
	}
	if iter.Err() != nil || len(got) != 1 || got[0] != "eu.example.com=ca" {
		t.Fatalf("list: %v %v", got, iter.Err())
	}
	if _, err := rh.Delete(ctx, "eu.example.com", addressing.RegionalHostnameDeleteParams{ZoneID: cloudflare.F(env.zoneID)}); err != nil {
		t.Fatal(err)
	}
	if _, err := rh.Get(ctx, "eu.example.com", addressing.RegionalHostnameGetParams{ZoneID: cloudflare.F(env.zoneID)}); err == nil {
		t.Fatal("deleted regional hostname still found")
	} else if status, code := sdkErrorCode(t, err); status != 404 || code != CodeHostnameNotFound {
		t.Fatalf("get deleted: %d %d", status, code)
	}
}
