package e2e

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/miekg/dns"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/mirror"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// Split horizon with `zonekeeper mirror`: zonekeeper publishes Ingresses under /skydns (the internal
// view), the mirror copies them to /external with etcd-injector's WAN rules, and a second CoreDNS
// serving /external answers the WAN address while the first answers the internal one. The CNAME and
// the ownership TXT records reach the public view unchanged, and a deletion reaches it through the
// watch.
func TestMirrorSplitHorizon(t *testing.T) {
	e := startEnv(t)
	public := *e
	public.coredns = testbed.StartCoreDNSForEtcd(t, e.dnsEtcd.Endpoint, "/external", "example.com.")

	dev1 := e.createIngress(t, ingress("web", "default", nil, "dev1.example.com"), "192.168.10.51")
	e.createIngress(t, ingress("alias", "default", nil, "alias1.example.com"), "192.168.10.60")
	e.createIngress(t, ingress("cname", "default", map[string]string{
		"external-dns.alpha.kubernetes.io/hostname": "dev2.example.com",
		"external-dns.alpha.kubernetes.io/target":   "alias1.example.com",
	}), "192.168.10.52")
	e.start(t, "--source=ingress", "--txt-owner-id=e2e", "--policy=sync", "--interval=1h")

	rules := filepath.Join(t.TempDir(), "rules.yaml")
	if err := os.WriteFile(rules, []byte("- jsonpath: .host\n  repl: 203.0.113.7\n- jsonpath: .ttl\n  repl: 900\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	log := &testbed.LogBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- mirror.Main(ctx, []string{
			"--src-endpoints=" + e.dnsEtcd.Endpoint, "--dst-endpoints=" + e.dnsEtcd.Endpoint,
			"--src-directory=/skydns", "--dst-directory=/external", "--rules-filepath=" + rules, "--delete",
		}, &bytes.Buffer{}, log, os.Getenv)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			if code != 0 || t.Failed() {
				t.Logf("mirror exit %d, log:\n%s", code, tail(log.String(), 8000))
			}
		case <-time.After(15 * time.Second):
			t.Error("mirror did not stop within 15 s")
		}
	})

	e.expectAnswer(t, converge, "dev1.example.com", dns.TypeA, "192.168.10.51")
	public.expectAnswer(t, converge, "dev1.example.com", dns.TypeA, "203.0.113.7")
	public.expectAnswer(t, converge, "alias1.example.com", dns.TypeA, "203.0.113.7")
	// The CNAME stays a CNAME (etcd-injector made it an A record), and the ownership TXT stays TXT only.
	e.expectAnswer(t, converge, "dev2.example.com", dns.TypeA, "192.168.10.60", "cname:alias1.example.com")
	public.expectAnswer(t, converge, "dev2.example.com", dns.TypeA, "203.0.113.7", "cname:alias1.example.com")
	want := ownership("e2e", "ingress/default/web")
	e.expectAnswer(t, converge, "a-dev1.example.com", dns.TypeTXT, want)
	public.expectAnswer(t, converge, "a-dev1.example.com", dns.TypeTXT, want)
	if _, got, err := public.answers("a-dev1.example.com", dns.TypeA); err != nil || len(got) != 0 {
		t.Errorf("the ownership record became an address in the public view: %v %v", got, err)
	}
	assertTTL(t, public.coredns.Addr, "dev1.example.com", 900)

	if err := e.client.NetworkingV1().Ingresses("default").Delete(context.Background(), dev1.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.expectNXDOMAIN(t, converge, "dev1.example.com")
	public.expectNXDOMAIN(t, 5*time.Second, "dev1.example.com")
	public.expectAnswer(t, time.Second, "alias1.example.com", dns.TypeA, "203.0.113.7")
}

func assertTTL(t *testing.T, server, name string, want uint32) {
	t.Helper()
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), dns.TypeA)
	r, _, err := (&dns.Client{Timeout: 2 * time.Second}).Exchange(m, server)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Answer) == 0 || r.Answer[0].Header().Ttl != want {
		t.Errorf("%s TTL: answer %v, want TTL %d", name, r.Answer, want)
	}
}
