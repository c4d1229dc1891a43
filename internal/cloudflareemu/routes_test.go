package cloudflareemu

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// apiMDLine matches an operation of the SDK's api.md files, e.g.
// <code title="post /zones/{zone_id}/dns_records/batch">client.DNS.Records.<a …>Batch</a>
var apiMDLine = regexp.MustCompile(`<code title="(get|post|put|patch|delete) ([^"]+)">client\.([\w.]+)\.<a [^>]*>(\w+)</a>`)

// sdkOperations reads every method and path of cloudflare-go v7.7.0 from the
// api.md files in the module cache, keyed by SDK method ("DNS.Records.New").
func sdkOperations(t *testing.T) map[string]Route {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/cloudflare/cloudflare-go/v7").Output()
	if err != nil {
		t.Fatalf("locating cloudflare-go v7 in the module cache: %v", err)
	}
	dir := strings.TrimSpace(string(out))
	ops := map[string]Route{}
	err = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "api.md" {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range apiMDLine.FindAllStringSubmatch(string(b), -1) {
			ops[m[3]+"."+m[4]] = Route{Method: strings.ToUpper(m[1]), Path: m[2]}
		}
		return nil
	})
	if err != nil || len(ops) < 1000 {
		t.Fatalf("read %d operations from %s/**/api.md (%v); expected the SDK's full list", len(ops), dir, err)
	}
	return ops
}

// providerOperations are the SDK methods the Cloudflare providers of
// zonekeeper and external-dns call, with the emulator operation serving each.
var providerOperations = map[string]string{
	"Zones.List":                          OpZonesList,
	"Zones.Get":                           OpZonesGet,
	"DNS.Records.List":                    OpRecordsList,
	"DNS.Records.New":                     OpRecordsNew,
	"DNS.Records.Get":                     OpRecordsGet,
	"DNS.Records.Update":                  OpRecordsUpdate,
	"DNS.Records.Edit":                    OpRecordsEdit,
	"DNS.Records.Delete":                  OpRecordsDelete,
	"DNS.Records.Batch":                   OpRecordsBatch,
	"CustomHostnames.List":                OpCustomHostnamesList,
	"CustomHostnames.New":                 OpCustomHostnamesNew,
	"CustomHostnames.Get":                 OpCustomHostnamesGet,
	"CustomHostnames.Delete":              OpCustomHostnamesDelete,
	"Addressing.RegionalHostnames.List":   OpRegionalHostnamesList,
	"Addressing.RegionalHostnames.New":    OpRegionalHostnamesNew,
	"Addressing.RegionalHostnames.Get":    OpRegionalHostnamesGet,
	"Addressing.RegionalHostnames.Edit":   OpRegionalHostnamesEdit,
	"Addressing.RegionalHostnames.Delete": OpRegionalHostnamesDelete,
}

// TestRoutesMatchSDKAPIMD checks that every operation the providers use is
// routed with the SDK's verb and path template, and that the emulator has
// no route the SDK does not know.
func TestRoutesMatchSDKAPIMD(t *testing.T) {
	ops := sdkOperations(t)
	byOp := map[string]Route{}
	for _, r := range Routes() {
		byOp[r.Operation] = r
	}
	for method, op := range providerOperations {
		want, ok := ops[method]
		if !ok {
			t.Errorf("api.md has no %s", method)
			continue
		}
		got, ok := byOp[op]
		if !ok || got.Method != want.Method || got.Path != want.Path {
			t.Errorf("%s: api.md says %s %s, emulator routes %s %s", method, want.Method, want.Path, got.Method, got.Path)
		}
	}
	if len(byOp) != len(providerOperations) {
		t.Errorf("emulator has %d routes, providerOperations lists %d", len(byOp), len(providerOperations))
	}
	known := map[string]bool{}
	for _, r := range ops {
		known[r.Method+" "+r.Path] = true
	}
	for _, r := range Routes() {
		if !known[r.Method+" "+r.Path] {
			t.Errorf("emulator route %s %s is not in the SDK's api.md", r.Method, r.Path)
		}
	}
}

// TestUnemulatedSDKPathsGetCloudflareErrors requests every other zone-level
// path of api.md and expects Cloudflare's error envelope, never a success
// or a non-JSON answer.
func TestUnemulatedSDKPathsGetCloudflareErrors(t *testing.T) {
	env := newEnv(t, Options{})
	emulated := map[string]bool{}
	for _, r := range Routes() {
		emulated[r.Method+" "+r.Path] = true
	}
	param := regexp.MustCompile(`\{[^}]+\}`)
	var tried []string
	for _, r := range sdkOperations(t) {
		if emulated[r.Method+" "+r.Path] || !strings.HasPrefix(r.Path, "/zones/{zone_id}/") {
			continue
		}
		path := strings.Replace(r.Path, "{zone_id}", env.zoneID, 1)
		path = param.ReplaceAllString(path, "0123456789abcdef0123456789abcdef")
		status, e := env.do(t, r.Method, strings.TrimSuffix(APIPrefix, "/")+path, map[string]any{})
		if status != http.StatusNotFound && status != http.StatusMethodNotAllowed {
			t.Errorf("%s %s: status %d, want 404 or 405: %s", r.Method, r.Path, status, e.raw)
		}
		if e.Success || len(e.Errors) == 0 || string(e.Result) != "null" || e.Messages == nil {
			t.Errorf("%s %s: not a Cloudflare error envelope: %s", r.Method, r.Path, e.raw)
		}
		tried = append(tried, r.Method+" "+r.Path)
	}
	sort.Strings(tried)
	if len(tried) < 100 {
		t.Fatalf("only %d zone-level paths tried", len(tried))
	}
	t.Logf("%d unemulated zone-level SDK operations answered with Cloudflare error envelopes", len(tried))
}
