package azurednsemu

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestRouteTableIsTheSwagger checks the route table against every
// operation of both swagger files (testdata/) both ways: same operationId,
// verb and path template, nothing invented, nothing missing, and the
// api-versions the files name.
func TestRouteTableIsTheSwagger(t *testing.T) {
	for api, version := range map[string]string{APIDNS: DNSAPIVersion, APIPrivateDNS: PrivateDNSAPIVersion} {
		spec := loadSpec(t, api)
		if spec.APIVersion != version {
			t.Fatalf("%s: testdata is api-version %s, the emulator serves %s", api, spec.APIVersion, version)
		}
		routes := map[string]Route{}
		for _, r := range Routes() {
			if r.API == api {
				routes[r.ID] = r
			}
		}
		for _, op := range spec.Operations {
			r, ok := routes[op.ID]
			if !ok {
				t.Errorf("%s %s (%s %s) is in the swagger but not routed", api, op.ID, op.Method, op.Path)
				continue
			}
			delete(routes, op.ID)
			if r.Method != op.Method || r.Path != op.Path {
				t.Errorf("%s %s: routed as %s %s, the swagger has %s %s", api, op.ID, r.Method, r.Path, op.Method, op.Path)
			}
			sort.Strings(op.Query)
			q := append([]string(nil), r.Query...)
			sort.Strings(q)
			if strings.Join(q, ",") != strings.Join(op.Query, ",") {
				t.Errorf("%s %s: query parameters %v, the swagger has %v", api, op.ID, q, op.Query)
			}
		}
		for id := range routes {
			t.Errorf("%s %s is routed but not in the swagger", api, id)
		}
	}
}

// providerOps are the operations external-dns v0.21.0 and v0.23.0
// provider/azure call (azure.go, azure_private_dns.go), by SDK method.
var providerOps = map[string]string{
	"dns zonesClient.NewListByResourceGroupPager":        OpZonesListByResourceGroup,
	"dns recordSetsClient.NewListAllByDNSZonePager":      OpRecordSetsListAllByDNSZone,
	"dns recordSetsClient.CreateOrUpdate":                OpRecordSetsCreateOrUpdate,
	"dns recordSetsClient.Delete":                        OpRecordSetsDelete,
	"privatedns zonesClient.NewListByResourceGroupPager": OpPrivateZonesListByResourceGroup,
	"privatedns recordSetsClient.NewListPager":           OpPrivateRecordSetsList,
	"privatedns recordSetsClient.CreateOrUpdate":         OpPrivateRecordSetsCreateOrUpdate,
	"privatedns recordSetsClient.Delete":                 OpPrivateRecordSetsDelete,
}

// TestProviderOperationsAreEmulated reads external-dns's Azure providers
// from the module cache (when it is there) and checks that every SDK call
// they make is in providerOps, and that every one of those is emulated.
func TestProviderOperationsAreEmulated(t *testing.T) {
	emulated := map[string]bool{}
	for _, r := range Routes() {
		emulated[r.Op()] = r.Emulated
	}
	for _, op := range providerOps {
		if !emulated[op] {
			t.Errorf("%s is used by external-dns but not emulated", op)
		}
	}
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	call := regexp.MustCompile(`p\.(zonesClient|recordSetsClient)\.(\w+)\(`)
	read := 0
	for _, v := range []string{"v0.21.0", "v0.23.0"} {
		for api, file := range map[string]string{APIDNS: "azure.go", APIPrivateDNS: "azure_private_dns.go"} {
			src, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "sigs.k8s.io", "external-dns@"+v, "provider", "azure", file))
			if err != nil {
				continue
			}
			read++
			seen := map[string]bool{}
			for _, m := range call.FindAllStringSubmatch(string(src), -1) {
				key := api + " " + m[1] + "." + m[2]
				seen[key] = true
				if _, ok := providerOps[key]; !ok {
					t.Errorf("external-dns %s %s calls %s.%s, which providerOps does not map to an operation", v, file, m[1], m[2])
				}
			}
			for key := range providerOps {
				if strings.HasPrefix(key, api+" ") && !seen[key] {
					t.Errorf("external-dns %s %s no longer calls %s", v, file, key)
				}
			}
		}
	}
	if read == 0 {
		t.Log("external-dns v0.21.0/v0.23.0 are not in the module cache; checked the recorded list only")
	}
}

// armCall sends one request with a valid token to the handler.
func armCall(t *testing.T, s *Server, method, path string) (int, map[string]map[string]string) {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader("{}"))
	req.Header.Set("Authorization", "Bearer "+s.IssueToken())
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	var body map[string]map[string]string
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || body["error"]["code"] == "" || body["error"]["message"] == "" {
		t.Fatalf("%s %s: %d %s is not an ARM error envelope", method, path, w.Code, w.Body)
	}
	return w.Code, body
}

// TestUnemulatedOperationsAnswer501 sends every operation the emulator
// does not implement and checks it answers 501 NotImplemented in the ARM
// envelope (so a client never believes a write happened), and that unknown
// paths, wrong verbs, a missing or wrong api-version and a missing token
// get ARM's errors.
func TestUnemulatedOperationsAnswer501(t *testing.T) {
	s := New(Options{})
	mustSeed(t, s, Seed{Subscriptions: []SeedSubscription{{ID: "sub", ResourceGroups: []SeedResourceGroup{{Name: "rg"}}}}})
	fill := strings.NewReplacer("{subscriptionId}", "sub", "{resourceGroupName}", "rg", "{zoneName}", "example.com",
		"{privateZoneName}", "internal.example", "{virtualNetworkLinkName}", "link", "{recordType}", "A", "{relativeRecordSetName}", "www")
	n := 0
	for _, r := range Routes() {
		if r.Emulated {
			continue
		}
		n++
		code, body := armCall(t, s, r.Method, fill.Replace(r.Path)+"?api-version="+apiVersion(r.API))
		if code != http.StatusNotImplemented || body["error"]["code"] != "NotImplemented" || !strings.Contains(body["error"]["message"], r.ID) {
			t.Errorf("%s: %d %v, want 501 NotImplemented naming it", r.Op(), code, body)
		}
	}
	if n != 10 {
		t.Errorf("%d unemulated operations, want 10 (README lists them)", n)
	}
	zone := "/subscriptions/sub/resourceGroups/rg/providers/Microsoft.Network/dnsZones/example.com"
	for _, c := range []struct {
		method, path string
		status       int
		code         string
	}{
		{"GET", "/subscriptions/sub/providers/Microsoft.Network/trafficManagerProfiles?api-version=2018-05-01", 404, "NotFound"},
		{"POST", zone + "/A/www?api-version=2018-05-01", 405, "MethodNotAllowed"},
		{"GET", zone, 400, "MissingApiVersionParameter"},
		{"GET", zone + "?api-version=2023-07-01-preview", 400, "NoRegisteredProviderFound"},
		{"GET", "/subscriptions/sub/resourceGroups/rg/providers/Microsoft.Network/privateDnsZones/x.example?api-version=2018-05-01", 400, "NoRegisteredProviderFound"},
		{"GET", zone + "/all?api-version=2018-05-01&$filter=x", 400, "InvalidQueryParameter"},
		{"GET", zone + "?api-version=2018-05-01", 404, "ResourceNotFound"},
		{"GET", "/subscriptions/other/providers/Microsoft.Network/dnszones?api-version=2018-05-01", 404, "SubscriptionNotFound"},
		{"GET", zone + "/all?api-version=2018-05-01&$top=0", 404, "ResourceNotFound"},
	} {
		code, body := armCall(t, s, c.method, c.path)
		if code != c.status || body["error"]["code"] != c.code {
			t.Errorf("%s %s: %d %v, want %d %s", c.method, c.path, code, body, c.status, c.code)
		}
	}
	req := httptest.NewRequest("GET", zone+"?api-version=2018-05-01", nil)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	if w.Code != http.StatusUnauthorized || !strings.Contains(w.Body.String(), "AuthenticationFailed") {
		t.Errorf("no token: %d %s, want 401 AuthenticationFailed", w.Code, w.Body)
	}
	if c := s.Counters(); c.Errors[OpUnrouted+":NotFound"] != 1 || c.Errors["dns/Zones_Delete:NotImplemented"] != 1 {
		t.Errorf("counters %v", c.Errors)
	}
}

// TestLiteralSegmentsWinOverRecordType checks that "all", "recordsets" and
// "ALL" are routed to the list operations, in any case, not to
// ListByType with a record type of that name.
func TestLiteralSegmentsWinOverRecordType(t *testing.T) {
	for path, want := range map[string]string{
		pZone + "/all":                    "RecordSets_ListAllByDnsZone",
		pZone + "/ALL":                    "RecordSets_ListAllByDnsZone",
		pZone + "/recordsets":             "RecordSets_ListByDnsZone",
		pZone + "/TXT":                    "RecordSets_ListByType",
		pPZone + "/all":                   "RecordSets_List",
		pPZone + "/virtualnetworklinks":   "VirtualNetworkLinks_List",
		strings.ToLower(pZone) + "/a/www": "RecordSets_Get",
	} {
		rt, _, _ := match(routeTable(), "GET", path)
		if rt.ID != want {
			t.Errorf("GET %s routed to %q, want %s", path, rt.ID, want)
		}
	}
}
