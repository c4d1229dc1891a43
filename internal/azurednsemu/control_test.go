package azurednsemu

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

func control(t *testing.T, base, method, path, body string, want int) []byte {
	t.Helper()
	req, err := http.NewRequest(method, base+"/_emulator/"+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("%s %s: %d %s, want %d", method, path, resp.StatusCode, b, want)
	}
	return b
}

// TestControlAPI drives every test hook over HTTP: seed, dump (with and
// without etags), token, calls, counters, faults, write failures, rate
// limit, routes and reset.
func TestControlAPI(t *testing.T) {
	s := New(Options{})
	ts := httptest.NewServer(s)
	defer ts.Close()
	control(t, ts.URL, "POST", "seed", `{"subscriptions":[{"id":"sub","resourceGroups":[{"name":"rg",
	  "zones":[{"name":"example.com","recordSets":[{"name":"www","type":"A","ttl":60,"records":["192.0.2.1"]},
	    {"name":"_sip._tcp","type":"SRV","ttl":60,"records":["10 5 5060 sip.example.com"]},
	    {"name":"mail","type":"MX","ttl":60,"records":["10 mx.example.com"]},
	    {"name":"@","type":"CAA","ttl":60,"records":["0 issue ca.example"]}]}],
	  "privateZones":[{"name":"internal.example","recordSets":[{"name":"vm","type":"A","ttl":10,"records":["10.0.0.4"],"autoRegistered":true}],
	    "virtualNetworkLinks":[{"name":"l","virtualNetwork":"/vnet","registrationEnabled":true}]}]}]}]}`, 200)
	control(t, ts.URL, "POST", "seed", `{"subscriptions":[{"id":"sub","resourceGroups":[{"name":"rg","zones":[{"name":"x.example","colour":"red"}]}]}]}`, 400)
	if b := control(t, ts.URL, "POST", "faults", `{"stauts":503}`, 400); !strings.Contains(string(b), `"stauts\"`) {
		t.Fatalf("unknown fault field: %s", b)
	}
	control(t, ts.URL, "POST", "seed", `{"subscriptions":[{"id":"sub","resourceGroups":[{"name":"rg","zones":[{"name":"y.example","recordSets":[{"name":"a","type":"A","ttl":1,"records":["not-an-ip"]}]}]}]}]}`, 400)
	var dump []ZoneDump
	if err := json.Unmarshal(control(t, ts.URL, "GET", "dump?etags=false", "", 200), &dump); err != nil {
		t.Fatal(err)
	}
	if len(dump) != 2 || dump[0].Name != "example.com" || !dump[1].Private || dump[0].ETag != "" {
		t.Fatalf("dump %+v", dump)
	}
	var got []string
	for _, r := range dump[0].RecordSets {
		got = append(got, r.Name+" "+r.Type+" "+strings.Join(r.Records, ","))
	}
	want := []string{"@ CAA 0 issue ca.example", "@ NS ns1-01.azure-dns.com.,ns2-01.azure-dns.net.,ns3-01.azure-dns.org.,ns4-01.azure-dns.info.",
		"@ SOA ns1-01.azure-dns.com. azuredns-hostmaster.microsoft.com 1 3600 300 2419200 300", "_sip._tcp SRV 10 5 5060 sip.example.com",
		"mail MX 10 mx.example.com", "www A 192.0.2.1"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("public dump\n%q\nwant\n%q", got, want)
	}
	if rs := dump[1].RecordSets; len(rs) != 2 || !rs[1].AutoRegistered || len(dump[1].VirtualNetworkLinks) != 1 {
		t.Fatalf("private dump %+v", dump[1])
	}

	var tok map[string]any
	_ = json.Unmarshal(control(t, ts.URL, "POST", "token", "", 200), &tok)
	get := func(path string) int {
		req, _ := http.NewRequest("GET", ts.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+tok["access_token"].(string))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	zones := "/subscriptions/sub/resourceGroups/rg/providers/Microsoft.Network/dnsZones?api-version=2018-05-01"
	if code := get(zones); code != 200 {
		t.Fatalf("list zones with the control token: %d", code)
	}
	control(t, ts.URL, "POST", "faults", `{"operation":"dns/Zones_ListByResourceGroup","status":429,"count":1,"retryAfter":3}`, 200)
	control(t, ts.URL, "POST", "faults", `{"status":500,"duration":"soon"}`, 400)
	control(t, ts.URL, "POST", "write-failures", `{"recordName":"www","recordType":"a"}`, 200)
	var faults struct {
		Faults        []Fault        `json:"faults"`
		WriteFailures []WriteFailure `json:"writeFailures"`
	}
	_ = json.Unmarshal(control(t, ts.URL, "GET", "faults", "", 200), &faults)
	if len(faults.Faults) != 1 || faults.Faults[0].RetryAfter != 3 || len(faults.WriteFailures) != 1 || faults.WriteFailures[0].RecordType != "A" {
		t.Fatalf("faults %+v", faults)
	}
	if code := get(zones); code != 429 {
		t.Fatalf("with a 429 fault: %d", code)
	}
	var c Counters
	_ = json.Unmarshal(control(t, ts.URL, "GET", "counters", "", 200), &c)
	if c.Throttled != 1 || c.Calls[OpZonesListByResourceGroup] != 2 || c.Total != 2 {
		t.Fatalf("counters %+v", c)
	}
	var calls []Call
	_ = json.Unmarshal(control(t, ts.URL, "GET", "calls", "", 200), &calls)
	if len(calls) != 2 || calls[1].Status != 429 || calls[1].Code != "TooManyRequests" || calls[1].ResourceGroup != "rg" {
		t.Fatalf("calls %+v", calls)
	}
	control(t, ts.URL, "DELETE", "calls", "", 200)
	control(t, ts.URL, "DELETE", "faults", "", 200)
	control(t, ts.URL, "PUT", "rate-limit", `{"requestsPerSecond":-1}`, 400)
	control(t, ts.URL, "PUT", "rate-limit", `{"requestsPerSecond":0.001,"burst":1,"retryAfter":9}`, 200)
	if get(zones) != 200 || get(zones) != 429 {
		t.Fatal("rate limit of one request not applied")
	}
	var routes []Route
	_ = json.Unmarshal(control(t, ts.URL, "GET", "routes", "", 200), &routes)
	if len(routes) != len(Routes()) {
		t.Fatalf("routes: %d", len(routes))
	}
	control(t, ts.URL, "POST", "reset", "", 200)
	_ = json.Unmarshal(control(t, ts.URL, "GET", "dump", "", 200), &dump)
	if len(dump) != 0 {
		t.Fatalf("after reset: %+v", dump)
	}
	control(t, ts.URL, "GET", "nothing", "", 404)
}

// TestTokenEndpointRefusals checks the Entra ID endpoints refuse what a
// real tenant refuses, with OAuth2 error bodies carrying AADSTS codes.
func TestTokenEndpointRefusals(t *testing.T) {
	s := New(Options{Credentials: []Credential{{TenantID: "t", ClientID: "c", ClientSecret: "s"}}})
	ts := httptest.NewServer(s)
	defer ts.Close()
	post := func(tenant string, form url.Values) (int, string) {
		resp, err := http.PostForm(ts.URL+"/"+tenant+"/oauth2/v2.0/token", form)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	ok := url.Values{"grant_type": {"client_credentials"}, "client_id": {"c"}, "client_secret": {"s"}, "scope": {"https://management.core.windows.net//.default"}}
	if code, body := post("t", ok); code != 200 || !strings.Contains(body, `"token_type":"Bearer"`) {
		t.Fatalf("valid login: %d %s", code, body)
	}
	for _, c := range []struct {
		tenant string
		change func(url.Values)
		status int
		aadsts string
	}{
		{"t", func(v url.Values) { v.Set("client_secret", "wrong") }, 401, "AADSTS7000215"},
		{"t", func(v url.Values) { v.Set("client_id", "other") }, 400, "AADSTS700016"},
		{"other", func(url.Values) {}, 400, "AADSTS90002"},
		{"t", func(v url.Values) { v.Set("scope", "openid") }, 400, "AADSTS1002012"},
		{"t", func(v url.Values) { v.Set("grant_type", "password") }, 400, "AADSTS70003"},
		{"t", func(v url.Values) { v.Del("client_secret"); v.Set("client_assertion", "jwt") }, 400, "AADSTS7000218"},
	} {
		form := url.Values{}
		for k, v := range ok {
			form[k] = append([]string(nil), v...)
		}
		c.change(form)
		if code, body := post(c.tenant, form); code != c.status || !strings.Contains(body, c.aadsts) {
			t.Errorf("%s %v: %d %s, want %d %s", c.tenant, form, code, body, c.status, c.aadsts)
		}
	}
	resp, err := http.Get(ts.URL + "/common/discovery/instance?api-version=1.1&authorization_endpoint=http://x/t/oauth2/v2.0/authorize")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Fatalf("instance discovery for a plain-http authority: %d", resp.StatusCode)
	}
}
