package googlednsemu

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// discoveryMethod is a method of the discovery document.
type discoveryMethod struct {
	ID         string `json:"id"`
	HTTPMethod string `json:"httpMethod"`
	Path       string `json:"path"`
	FlatPath   string `json:"flatPath"`
}

type discoveryResource struct {
	Methods   map[string]discoveryMethod   `json:"methods"`
	Resources map[string]discoveryResource `json:"resources"`
}

type discoveryDoc struct {
	Revision    string                       `json:"revision"`
	RootURL     string                       `json:"rootUrl"`
	ServicePath string                       `json:"servicePath"`
	Resources   map[string]discoveryResource `json:"resources"`
	Schemas     map[string]discoverySchema   `json:"schemas"`
}

func loadDiscovery(t *testing.T) discoveryDoc {
	t.Helper()
	b, err := os.ReadFile(discoveryPath(t))
	if err != nil {
		t.Fatal(err)
	}
	var d discoveryDoc
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

func (d discoveryDoc) methods() map[string]discoveryMethod {
	out := map[string]discoveryMethod{}
	var walk func(map[string]discoveryResource)
	walk = func(rs map[string]discoveryResource) {
		for _, r := range rs {
			for _, m := range r.Methods {
				out[m.ID] = m
			}
			walk(r.Resources)
		}
	}
	walk(d.Resources)
	return out
}

// TestRouteTableIsTheDiscoveryDocument checks the route table against every
// method of dns/v1 both ways: same ids, verbs and flat paths, nothing
// invented, nothing missing; and that the revision is the one README.md
// names.
func TestRouteTableIsTheDiscoveryDocument(t *testing.T) {
	d := loadDiscovery(t)
	if d.Revision != "20260219" || d.RootURL != "https://dns.googleapis.com/" || d.ServicePath != "" {
		t.Fatalf("discovery revision %s root %s servicePath %q: the emulator and README were built from 20260219", d.Revision, d.RootURL, d.ServicePath)
	}
	methods := d.methods()
	routes := map[string]Route{}
	for _, r := range Routes() {
		routes[r.ID] = r
	}
	for id, m := range methods {
		r, ok := routes[id]
		if !ok {
			t.Errorf("discovery method %s (%s %s) has no route", id, m.HTTPMethod, m.FlatPath)
			continue
		}
		if r.Method != m.HTTPMethod || r.Path != m.FlatPath {
			t.Errorf("%s: route %s %s, discovery %s %s", id, r.Method, r.Path, m.HTTPMethod, m.FlatPath)
		}
		if !strings.Contains(m.Path, "{+") && m.Path != m.FlatPath {
			t.Errorf("%s: path %s differs from flatPath %s", id, m.Path, m.FlatPath)
		}
	}
	for id := range routes {
		if _, ok := methods[id]; !ok {
			t.Errorf("route %s is not a method of the discovery document", id)
		}
	}
	if len(routes) != len(methods) {
		t.Errorf("%d routes, %d discovery methods", len(routes), len(methods))
	}
}

// providerMethods reads which dns/v1 methods an external-dns google
// provider calls, from its source in the module cache: the client fields
// (resourceRecordSetsClient: resourceRecordSetsService{dnsClient.ResourceRecordSets})
// and the calls on them (p.changesClient.Create(…)).
func providerMethods(t *testing.T, version string) []string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(strings.TrimSpace(string(out)), "sigs.k8s.io", "external-dns@"+version, "provider", "google", "google.go")
	src, err := os.ReadFile(file)
	if err != nil {
		t.Skipf("external-dns %s is not in the module cache (%v); hack/testbed.sh downloads it", version, err)
	}
	fields := map[string]string{}
	for _, m := range regexp.MustCompile(`(\w+Client):\s+\w+Service\{dnsClient\.(\w+)\}`).FindAllStringSubmatch(string(src), -1) {
		fields[m[1]] = m[2]
	}
	set := map[string]bool{}
	for _, m := range regexp.MustCompile(`p\.(\w+Client)\.(\w+)\(`).FindAllStringSubmatch(string(src), -1) {
		res, ok := fields[m[1]]
		if !ok {
			t.Fatalf("%s: call on %s, whose service is unknown", file, m[1])
		}
		set["dns."+strings.ToLower(res[:1])+res[1:]+"."+strings.ToLower(m[2][:1])+m[2][1:]] = true
	}
	if len(set) == 0 {
		t.Fatalf("%s: found no dns/v1 calls; the pattern no longer matches the source", file)
	}
	ids := make([]string, 0, len(set))
	for id := range set {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// TestProviderMethodsAreRouted checks every method zonekeeper's provider and
// external-dns v0.21.0/v0.23.0 call is emulated, and answers through the
// real path with the verb the discovery document gives.
func TestProviderMethodsAreRouted(t *testing.T) {
	want := map[string]bool{OpZonesList: true, OpZonesGet: true, OpRRSetsList: true, OpChangesPost: true, OpChangesGet: true, OpChangesList: true}
	for _, v := range []string{"v0.21.0", "v0.23.0"} {
		t.Run("external-dns "+v, func(t *testing.T) {
			ids := providerMethods(t, v)
			t.Logf("external-dns %s calls %v", v, ids)
			for _, id := range ids {
				want[id] = true
			}
		})
	}
	routes := map[string]Route{}
	for _, r := range Routes() {
		routes[r.ID] = r
	}
	for id := range want {
		if r, ok := routes[id]; !ok || !r.Emulated {
			t.Errorf("%s is used by a provider and is not emulated", id)
		}
	}
}

// TestEveryDiscoveryPathAnswers sends each discovery method to its path:
// emulated methods are dispatched (never 404 unrouted), the others answer
// 501 notImplemented in Google's envelope, a wrong verb and an unknown path
// answer 404 in the envelope.
func TestEveryDiscoveryPathAnswers(t *testing.T) {
	e := newEnv(t, Options{})
	e.seedStandard(t)
	token := e.emu.IssueToken()
	values := map[string]string{"project": testProject, "projectsId": testProject, "managedZone": "public-zone",
		"managedZonesId": "public-zone", "changeId": "0", "name": "www.example.com.", "type": "A"}
	fill := regexp.MustCompile(`\{(\w+)\}`)
	for id, m := range loadDiscovery(t).methods() {
		path := "/" + fill.ReplaceAllStringFunc(m.FlatPath, func(p string) string {
			if v, ok := values[p[1:len(p)-1]]; ok {
				return v
			}
			return "x"
		})
		status, env := call(t, e.srv.URL, m.HTTPMethod, path, token, `{}`)
		r := routeByID(id)
		switch {
		case r.Emulated && env.Error.Code != 0 && (status == http.StatusNotFound && env.Error.Errors[0].Reason == "notFound" && strings.Contains(env.Error.Message, "was not found on this server")):
			t.Errorf("%s %s %s: emulated but unrouted", id, m.HTTPMethod, path)
		case !r.Emulated && (status != http.StatusNotImplemented || env.Error.Status != "UNIMPLEMENTED" || env.Error.Errors[0].Reason != "notImplemented" || !strings.Contains(env.Error.Message, id)):
			t.Errorf("%s %s %s: got %d %+v, want 501 notImplemented naming the method", id, m.HTTPMethod, path, status, env.Error)
		}
	}
	for _, c := range []struct{ method, path string }{
		{"DELETE", "/dns/v1/projects/" + testProject + "/managedZones/public-zone/changes"},
		{"GET", "/dns/v2/projects/" + testProject + "/managedZones"},
		{"GET", "/dns/v1/projects/" + testProject + "/managedZones/public-zone/rrsets/www.example.com./A/extra"},
	} {
		status, env := call(t, e.srv.URL, c.method, c.path, token, "")
		if status != http.StatusNotFound || env.Error.Code != 404 || env.Error.Status != "NOT_FOUND" || env.Error.Errors[0].Domain != "global" || env.Error.Errors[0].Reason != "notFound" {
			t.Errorf("%s %s: got %d %+v, want 404 in Google's envelope", c.method, c.path, status, env.Error)
		}
	}
}

func routeByID(id string) Route {
	for _, r := range Routes() {
		if r.ID == id {
			return r
		}
	}
	return Route{}
}

// envelope is Google's error envelope, decoded strictly.
type envelope struct {
	Error struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Errors  []struct {
			Message string `json:"message"`
			Domain  string `json:"domain"`
			Reason  string `json:"reason"`
		} `json:"errors"`
		Status string `json:"status"`
	} `json:"error"`
}

// call sends a raw request and decodes an error envelope when the status is
// not 200 (failing on any other shape).
func call(t *testing.T, base, method, path, token, body string) (int, envelope) {
	t.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env envelope
	if resp.StatusCode != http.StatusOK {
		dec := json.NewDecoder(resp.Body)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&env); err != nil || len(env.Error.Errors) != 1 || env.Error.Code != resp.StatusCode {
			t.Fatalf("%s %s: %d body is not Google's error envelope (%v): %+v", method, path, resp.StatusCode, err, env)
		}
	}
	return resp.StatusCode, env
}

// v023APIVersion is the google.golang.org/api version external-dns v0.23.0
// builds with.
const v023APIVersion = "v0.298.0"

// laterDiscovery loads the discovery document external-dns v0.23.0's SDK
// was generated from, when the module cache has it.
func laterDiscovery(t *testing.T) (discoveryDoc, bool) {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "google.golang.org", "api@"+v023APIVersion, "dns", "v1", "dns-api.json"))
	if err != nil {
		t.Logf("google.golang.org/api %s is not in the module cache (%v): not checked", v023APIVersion, err)
		return discoveryDoc{}, false
	}
	var d discoveryDoc
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return d, true
}

// TestEmulatedRoutesMatchV023Discovery: every emulated method has the same
// verb and path in the discovery document of external-dns v0.23.0's SDK.
func TestEmulatedRoutesMatchV023Discovery(t *testing.T) {
	d, ok := laterDiscovery(t)
	if !ok {
		t.Skip("no later discovery document")
	}
	methods := d.methods()
	for _, r := range Routes() {
		if !r.Emulated {
			continue
		}
		m, ok := methods[r.ID]
		if !ok || m.HTTPMethod != r.Method || m.FlatPath != r.Path {
			t.Errorf("%s: emulated as %s %s, revision %s has %+v", r.ID, r.Method, r.Path, d.Revision, m)
		}
	}
}
