package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// echoServer answers every request with the current body, as an "what is my IP" service would.
type echoServer struct {
	mu   sync.Mutex
	body string
}

func (s *echoServer) set(body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.body = body
}

func (s *echoServer) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprint(w, s.body)
}

// The public address comes from an HTTP echo service. When its answer changes, the external view
// follows within one refresh and the internal view is untouched; a garbage answer or a private address
// is rejected with a clear log line and the last good address stays published.
func TestPublicAddressDiscoveryDrivesTheExternalView(t *testing.T) {
	kube := testbed.StartKubeAPIServer(t)
	e := &env{kube: kube, client: kube.Client(t)}
	echo := &echoServer{body: "203.0.113.7\n"}
	srv := httptest.NewServer(echo)
	defer srv.Close()
	e.createIngress(t, ingress("home", "default", nil, "app.example.com"), "192.168.1.50")

	port := testbed.FreePort(t)
	server := fmt.Sprintf("127.0.0.1:%d", port)
	z := e.start(t, "--source=ingress", "--provider=builtin", fmt.Sprintf("--builtin-listen=%s", server),
		"--txt-owner-id=home", "--policy=sync",
		"--view=internal", "--view-subnets=internal=127.0.0.1/32",
		"--view=external", "--view-targets=external=public",
		"--public-ip-echo-url="+srv.URL, "--public-ip-refresh-interval=500ms")

	expect := func(from, want string) {
		t.Helper()
		testbed.Eventually(t, 10*time.Second, "app.example.com from "+from+" = "+want, func() error {
			got, err := lookupFrom(from, server, "app.example.com", dns.TypeA)
			if err != nil {
				return err
			}
			if strings.Join(got, ",") != want {
				return fmt.Errorf("got %v", got)
			}
			return nil
		})
	}
	expect("127.0.0.1", "192.168.1.50")
	expect("127.0.0.2", "203.0.113.7")

	echo.set("198.51.100.99")
	expect("127.0.0.2", "198.51.100.99")
	expect("127.0.0.1", "192.168.1.50")

	echo.set("<html>rate limited</html>")
	time.Sleep(1500 * time.Millisecond) // three refreshes
	expect("127.0.0.2", "198.51.100.99")
	echo.set("192.168.1.1") // a router that answers its LAN address
	time.Sleep(1500 * time.Millisecond)
	expect("127.0.0.2", "198.51.100.99")

	log := z.log.String()
	for _, want := range []string{"Public address in force", "Public address lookup failed", "rate limited", "192.168.1.1"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q", want)
		}
	}
	_, metrics, _ := z.get("/metrics")
	if !strings.Contains(metrics, `zonekeeper_public_address_info{address="198.51.100.99"`) {
		t.Errorf("metrics do not show the address in force")
	}
}
