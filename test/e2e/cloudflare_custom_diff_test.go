package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/app"
	"github.com/zonekeeper/zonekeeper/internal/cloudflareemu"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// cloudflareCustomHostnames reads an emulator's custom hostnames through the API, one line each:
// hostname, custom origin, and the SSL settings a client chose (method, type, bundle, authority,
// minimum TLS version).
func cloudflareCustomHostnames(t *testing.T, srv *cloudflareemu.Server, base string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, z := range srv.Dump() {
		req, _ := http.NewRequest(http.MethodGet, base+"zones/"+z.ID+"/custom_hostnames?per_page=50", nil)
		req.Header.Set("Authorization", "Bearer x")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Result []struct {
				Hostname           string `json:"hostname"`
				CustomOriginServer string `json:"custom_origin_server"`
				SSL                struct {
					Method               string         `json:"method"`
					Type                 string         `json:"type"`
					BundleMethod         string         `json:"bundle_method"`
					CertificateAuthority string         `json:"certificate_authority"`
					Settings             map[string]any `json:"settings"`
				} `json:"ssl"`
			} `json:"result"`
		}
		err = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range body.Result {
			out[fmt.Sprintf("%s custom %s origin=%s ssl=%s/%s/%s/%s tls=%v", z.Name, h.Hostname, h.CustomOriginServer,
				h.SSL.Method, h.SSL.Type, h.SSL.BundleMethod, h.SSL.CertificateAuthority, h.SSL.Settings["min_tls_version"])] = true
		}
	}
	return out
}

// TestCloudflareCustomHostnamesMatchExternalDNS runs every built external-dns version and zonekeeper
// with --cloudflare-custom-hostnames (TLS 1.2, Let's Encrypt), each against its own emulator, over
// Services asking for custom hostnames (two on one A record, one on another) beside one asking for
// none, and compares the records and the custom hostnames (origin and SSL settings) field by field;
// each writes nothing on a second run or on the other's zone. Then one Service's list changes and
// another Service goes: both tools, on their own zones, end with the same custom hostnames again.
func TestCloudflareCustomHostnamesMatchExternalDNS(t *testing.T) {
	peers := testbed.ExternalDNSPeers(t)
	kube := testbed.StartKubeAPIServer(t)
	e := &env{kube: kube, client: kube.Client(t)}
	createShopAndBlog(t, e)
	e.createService(t, annotated(loadBalancer("plain", "default", nil), "hostname", "plain.example.com"), "10.51.0.3")

	base := []string{"--provider=cloudflare", "--source=service", "--registry=txt", "--txt-owner-id=diff",
		"--policy=sync", "--domain-filter=example.com", "--kubeconfig=" + kube.Kubeconfig,
		"--cloudflare-custom-hostnames", "--cloudflare-custom-hostnames-min-tls-version=1.2",
		"--cloudflare-custom-hostnames-certificate-authority=lets_encrypt"}
	for _, peer := range peers {
		t.Run(peer.Version, func(t *testing.T) {
			edSrv, edURL := cloudflareEmulator(t)
			zkSrv, zkURL := cloudflareEmulator(t)
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			runED := func(url string) string {
				cmd := exec.CommandContext(ctx, peer.Binary, append(append(append([]string{}, base...), peer.Args...), "--once", "--log-level=debug",
					fmt.Sprintf("--metrics-address=127.0.0.1:%d", testbed.FreePort(t)))...)
				cmd.Env = append(os.Environ(), "CLOUDFLARE_BASE_URL="+url, "CF_API_TOKEN=x")
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("external-dns %s: %v\n%s", peer.Version, err, tail(string(out), 6000))
				}
				return string(out)
			}
			runZK := func(url string) string {
				t.Setenv("CLOUDFLARE_BASE_URL", url)
				t.Setenv("CF_API_TOKEN", "x")
				var log bytes.Buffer
				if code := app.Main(ctx, append(append([]string{}, base...), "--once"), &bytes.Buffer{}, &log, os.Getenv); code != 0 {
					t.Fatalf("zonekeeper exited %d:\n%s", code, tail(log.String(), 6000))
				}
				return log.String()
			}
			state := func(srv *cloudflareemu.Server, url string) map[string]bool {
				out := cloudflareRecords(srv)
				for k := range cloudflareCustomHostnames(t, srv, url) {
					out[k] = true
				}
				return out
			}
			compare := func(step string, edLog, zkLog string) map[string]bool {
				t.Helper()
				ed, zk := state(edSrv, edURL), state(zkSrv, zkURL)
				if diffs := diffRecordSets(ed, zk); len(diffs) > 0 {
					t.Fatalf("%s: %d records or custom hostnames differ:\n%s\nexternal-dns log:\n%s\nzonekeeper log:\n%s",
						step, len(diffs), strings.Join(diffs, "\n"), tail(edLog, 4000), tail(zkLog, 3000))
				}
				return zk
			}
			edLog, zkLog := runED(edURL), runZK(zkURL)
			zk := compare("first run", edLog, zkLog)
			for _, want := range []string{
				"example.com custom www.customer-a.net origin=shop.example.com ssl=http/dv/ubiquitous/lets_encrypt tls=1.2",
				"example.com custom shop.customer-b.net origin=shop.example.com ssl=http/dv/ubiquitous/lets_encrypt tls=1.2",
				"example.com custom blog.customer-c.net origin=blog.example.com ssl=http/dv/ubiquitous/lets_encrypt tls=1.2",
			} {
				if !zk[want] {
					t.Errorf("zonekeeper made no %s", want)
				}
			}
			t.Logf("%d records and custom hostnames identical; calls: external-dns %v, zonekeeper %v", len(zk), edSrv.Counters().Calls, zkSrv.Counters().Calls)

			for _, run := range []struct {
				who string
				srv *cloudflareemu.Server
				do  func()
			}{
				{"zonekeeper again", zkSrv, func() { zkLog = runZK(zkURL) }},
				{"external-dns again", edSrv, func() { edLog = runED(edURL) }},
				{"zonekeeper on external-dns's zone", edSrv, func() { zkLog = runZK(edURL) }},
				{"external-dns on zonekeeper's zone", zkSrv, func() { edLog = runED(zkURL) }},
			} {
				run.srv.ClearCalls()
				run.do()
				c := run.srv.Counters().Calls
				if n := cloudflareWrites(run.srv) + c[cloudflareemu.OpCustomHostnamesNew] + c[cloudflareemu.OpCustomHostnamesDelete]; n != 0 {
					t.Errorf("%s: %d writes (%v)\nexternal-dns log:\n%s\nzonekeeper log:\n%s", run.who, n, c, tail(edLog, 3000), tail(zkLog, 3000))
				}
			}

			// The shop's list changes (one kept, one replaced) and the blog goes.
			deleteShopAndBlog(t, e)
			e.createService(t, annotated(loadBalancer("shop", "default", nil), "hostname", "shop.example.com",
				"cloudflare-custom-hostname", "www.customer-a.net,new.customer-e.net"), "10.51.0.1")
			defer func() { deleteShopAndBlog(t, e); createShopAndBlog(t, e) }()
			edLog, zkLog = runED(edURL), runZK(zkURL)
			zk = compare("after the change", edLog, zkLog)
			for _, gone := range []string{"shop.customer-b.net", "blog.customer-c.net"} {
				for k := range zk {
					if strings.Contains(k, " custom "+gone+" ") {
						t.Errorf("%s is still there", gone)
					}
				}
			}
			if !zk["example.com custom new.customer-e.net origin=shop.example.com ssl=http/dv/ubiquitous/lets_encrypt tls=1.2"] {
				t.Errorf("no new.customer-e.net: %v", zk)
			}
		})
	}
}

// createShopAndBlog creates the two Services asking for custom hostnames.
func createShopAndBlog(t *testing.T, e *env) {
	e.createService(t, annotated(loadBalancer("shop", "default", nil), "hostname", "shop.example.com",
		"cloudflare-custom-hostname", "www.customer-a.net,shop.customer-b.net"), "10.51.0.1")
	e.createService(t, annotated(loadBalancer("blog", "default", nil), "hostname", "blog.example.com",
		"cloudflare-custom-hostname", "blog.customer-c.net"), "10.51.0.2")
}

// deleteShopAndBlog deletes them (those that exist).
func deleteShopAndBlog(t *testing.T, e *env) {
	for _, n := range []string{"shop", "blog"} {
		_ = e.client.CoreV1().Services("default").Delete(context.Background(), n, metav1.DeleteOptions{})
	}
	testbed.Eventually(t, 10*time.Second, "shop and blog deleted", func() error {
		l, err := e.client.CoreV1().Services("default").List(context.Background(), metav1.ListOptions{})
		if err != nil {
			return err
		}
		for _, s := range l.Items {
			if s.Name == "shop" || s.Name == "blog" {
				return fmt.Errorf("%s still there", s.Name)
			}
		}
		return nil
	})
}
