package e2e

import (
	"context"
	"fmt"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/cloudflareemu"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// The home-lab split horizon with two provider kinds (issue 13 part 2 item 3): the internal view in a
// real CoreDNS over etcd (--provider=coredns, /skydns/), the external view in Cloudflare
// (--view-provider=external=cloudflare, the emulator through the real SDK) with the public address
// from an echo service. A new public address reaches Cloudflare only; a new Service address and a new
// hostname reach both views, each with its own targets; each view keeps its own ownership TXT records
// (in Cloudflare as external-dns writes them there); records in Cloudflare that zonekeeper does not own
// are never touched, and a converged run writes nothing more.
func TestSplitHorizonCoreDNSInternalCloudflareExternal(t *testing.T) {
	e := startEnv(t)
	emu := cloudflareemu.New(cloudflareemu.Options{})
	hs := httptest.NewServer(emu)
	t.Cleanup(hs.Close)
	foreign := []cloudflareemu.SeedRecord{
		{Type: "A", Name: "router.example.com", Content: "198.51.100.1", TTL: 300, Comment: "set by hand"},
		{Type: "TXT", Name: "example.com", Content: `"v=spf1 -all"`, TTL: 1},
		// A name the cluster publishes too, owned by nobody: zonekeeper must not take it over.
		{Type: "A", Name: "taken.example.com", Content: "198.51.100.2", TTL: 1},
	}
	if _, err := emu.Seed(cloudflareemu.Seed{Zones: []cloudflareemu.SeedZone{{Name: "example.com", Records: foreign}}}); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CLOUDFLARE_BASE_URL", hs.URL+cloudflareemu.APIPrefix)
	t.Setenv("CF_API_TOKEN", "x")
	echo := &echoServer{body: "203.0.113.7\n"}
	ip := httptest.NewServer(echo)
	t.Cleanup(ip.Close)

	svc := e.createService(t, annotated(loadBalancer("web", "default", nil), "hostname", "www.example.com,taken.example.com"), "192.168.1.50")
	e.start(t, "--source=service", "--txt-owner-id=home", "--policy=sync",
		"--view=internal", "--view-coredns-prefix=internal=/skydns/",
		"--view=external", "--view-provider=external=cloudflare", "--view-targets=external=public",
		"--public-ip-echo-url="+ip.URL, "--public-ip-refresh-interval=500ms")

	internal := func(name, want string) {
		t.Helper()
		testbed.Eventually(t, converge, "internal "+name+" = "+want, func() error {
			_, got, err := query(e.coredns.Addr, "", "udp", name, dns.TypeA)
			if err != nil {
				return err
			}
			if strings.Join(got, ",") != want {
				return fmt.Errorf("CoreDNS answers %v", got)
			}
			return nil
		})
	}
	external := func(want ...string) {
		t.Helper()
		sort.Strings(want)
		testbed.Eventually(t, converge, "Cloudflare holds "+strings.Join(want, "; "), func() error {
			got := cloudflareZone(emu)
			if strings.Join(got, "; ") != strings.Join(want, "; ") {
				return fmt.Errorf("Cloudflare holds\n  %s", strings.Join(got, "\n  "))
			}
			return nil
		})
	}
	unowned := []string{
		`A router.example.com 198.51.100.1 ttl=300 comment="set by hand"`,
		`TXT example.com "v=spf1 -all" ttl=1 comment=""`,
		`A taken.example.com 198.51.100.2 ttl=1 comment=""`,
	}
	owned := func(name string) []string {
		return []string{fmt.Sprintf(`TXT a-%s %s ttl=1 comment=""`, name, ownership("home", "service/default/web"))}
	}
	withPublic := func(addr string, names ...string) []string {
		out := append([]string{}, unowned...)
		for _, n := range names {
			out = append(out, fmt.Sprintf(`A %s %s ttl=1 comment=""`, n, addr))
			out = append(out, owned(n)...)
		}
		return out
	}

	internal("www.example.com", "192.168.1.50")
	external(withPublic("203.0.113.7", "www.example.com")...)
	// taken.example.com is in the internal view (nobody else holds it there) but not taken over in
	// Cloudflare, where someone else's record is.
	internal("taken.example.com", "192.168.1.50")

	// The WAN address changes: Cloudflare follows, CoreDNS keeps the cluster's address.
	echo.set("203.0.113.8")
	external(withPublic("203.0.113.8", "www.example.com")...)
	internal("www.example.com", "192.168.1.50")

	// The Service changes: a new address and a new name reach both views, each with its own targets.
	svc = e.setServiceIP(t, svc, "192.168.1.51")
	e.setServiceHostnames(t, svc, "www.example.com,taken.example.com,api.example.com")
	internal("www.example.com", "192.168.1.51")
	internal("api.example.com", "192.168.1.51")
	external(withPublic("203.0.113.8", "api.example.com", "www.example.com")...)

	// Converged: no more writes to Cloudflare.
	before := cloudflareWrites(emu)
	time.Sleep(3 * time.Second)
	if after := cloudflareWrites(emu); after != before {
		t.Errorf("%d writes to Cloudflare after convergence", after-before)
	}
}

// cloudflareZone lists example.com's records in the emulator, one line each (type, name, content,
// TTL, comment), sorted.
func cloudflareZone(emu *cloudflareemu.Server) []string {
	var out []string
	for _, z := range emu.Dump() {
		for _, r := range z.Records {
			out = append(out, fmt.Sprintf("%s %s %s ttl=%d comment=%q", r.Type, r.Name, r.Content, r.TTL, r.Comment))
		}
	}
	sort.Strings(out)
	return out
}

// setServiceIP changes a load balancer's status address, as a cloud controller would.
func (e *env) setServiceIP(t testing.TB, svc interface{ GetName() string }, ip string) *corev1.Service {
	t.Helper()
	ctx := context.Background()
	cur, err := e.client.CoreV1().Services("default").Get(ctx, svc.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cur.Status.LoadBalancer.Ingress[0].IP = ip
	updated, err := e.client.CoreV1().Services("default").UpdateStatus(ctx, cur, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("set status of service %s: %v", svc.GetName(), err)
	}
	return updated
}

// setServiceHostnames replaces a Service's hostname annotation.
func (e *env) setServiceHostnames(t testing.TB, svc interface{ GetName() string }, hosts string) {
	t.Helper()
	ctx := context.Background()
	cur, err := e.client.CoreV1().Services("default").Get(ctx, svc.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cur.Annotations["external-dns.alpha.kubernetes.io/hostname"] = hosts
	if _, err := e.client.CoreV1().Services("default").Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update service %s: %v", svc.GetName(), err)
	}
}

// Cloudflare throttles for a minute with Retry-After: 60 (issue 13 item 4) while the split horizon's
// objects change: the internal view (CoreDNS) keeps converging, the Cloudflare view waits the pause
// out instead of spinning (a handful of requests in the minute), the process never exits, and
// Cloudflare converges once the window ends. Reports the figures.
func TestSplitHorizonCloudflareLongRetryAfter(t *testing.T) {
	e := startEnv(t)
	emu := cloudflareemu.New(cloudflareemu.Options{})
	hs := httptest.NewServer(emu)
	t.Cleanup(hs.Close)
	if _, err := emu.Seed(cloudflareemu.Seed{Zones: []cloudflareemu.SeedZone{{Name: "example.com"}}}); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CLOUDFLARE_BASE_URL", hs.URL+cloudflareemu.APIPrefix)
	t.Setenv("CF_API_TOKEN", "x")
	svc := e.createService(t, annotated(loadBalancer("web", "default", nil), "hostname", "www.example.com"), "192.168.1.50")
	z := e.start(t, "--source=service", "--txt-owner-id=home", "--policy=sync",
		"--view=internal", "--view=external", "--view-provider=external=cloudflare", "--view-targets=external=public",
		"--public-ip=203.0.113.7")
	internal := func(name, want string, within time.Duration) {
		t.Helper()
		testbed.Eventually(t, within, "internal "+name+" = "+want, func() error {
			_, got, err := query(e.coredns.Addr, "", "udp", name, dns.TypeA)
			if err != nil {
				return err
			}
			if strings.Join(got, ",") != want {
				return fmt.Errorf("CoreDNS answers %v", got)
			}
			return nil
		})
	}
	external := func(within time.Duration, names ...string) {
		t.Helper()
		testbed.Eventually(t, within, "Cloudflare holds "+strings.Join(names, ", "), func() error {
			got := map[string]bool{}
			for _, line := range cloudflareZone(emu) {
				got[line] = true
			}
			for _, n := range names {
				if !got[fmt.Sprintf(`A %s 203.0.113.7 ttl=1 comment=""`, n)] {
					return fmt.Errorf("no %s in %v", n, cloudflareZone(emu))
				}
			}
			return nil
		})
	}
	calls := func() int {
		n := 0
		for _, c := range emu.Counters().Calls {
			n += c
		}
		return n
	}
	internal("www.example.com", "192.168.1.50", converge)
	external(converge, "www.example.com")

	const window = 60 * time.Second
	if err := emu.AddFault(cloudflareemu.Fault{Status: 429, Duration: window, RetryAfter: 60}); err != nil {
		t.Fatal(err)
	}
	start, before, cpu := time.Now(), calls(), processCPU(t)
	svc = e.setServiceIP(t, svc, "192.168.1.51")
	e.setServiceHostnames(t, svc, "www.example.com,api.example.com")
	internal("www.example.com", "192.168.1.51", 20*time.Second)
	internal("api.example.com", "192.168.1.51", 20*time.Second)
	internalTook := time.Since(start)

	time.Sleep(time.Until(start.Add(window - 2*time.Second)))
	during, cpuDuring := calls()-before, processCPU(t)-cpu
	if during > 10 {
		t.Errorf("%d Cloudflare requests while it asked for a 60 s pause, want a handful", during)
	}
	if !z.running() {
		t.Fatalf("zonekeeper exited during the throttling:\n%s", tail(z.log.String(), 4000))
	}
	if strings.Contains(strings.Join(cloudflareZone(emu), "\n"), "api.example.com") {
		t.Errorf("Cloudflare took a write while it answered 429")
	}
	external(90*time.Second, "www.example.com", "api.example.com")
	after := time.Since(start) - window
	t.Logf("Retry-After 60 s for 60 s: internal view converged in %s; %d Cloudflare requests in the window; %.2f CPU-s in it (this process); Cloudflare converged %s after the window",
		internalTook.Round(100*time.Millisecond), during, cpuDuring.Seconds(), after.Round(100*time.Millisecond))
}
