package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// A real BIND 9.18 as a secondary of the built-in server: zonekeeper sends a signed NOTIFY after every
// change, BIND transfers the zone (AXFR with the same TSIG key) at once, and a change to an Ingress is
// answered by the secondary within seconds — its SOA refresh is an hour, so without the NOTIFY it
// would not be.
func TestBuiltinNotifiesBINDSecondary(t *testing.T) {
	kube := testbed.StartKubeAPIServer(t)
	e := &env{kube: kube, client: kube.Client(t)}
	key := testbed.NewTSIGKey(t, "xfr-key", "hmac-sha256")
	keyFile := filepath.Join(t.TempDir(), "xfr.key")
	if err := os.WriteFile(keyFile, []byte(fmt.Sprintf("key %q {\n\talgorithm %s;\n\tsecret %q;\n};\n", key.Name, key.Algorithm, key.Secret)), 0o600); err != nil {
		t.Fatal(err)
	}
	ports := testbed.FreePorts(t, 2)
	zkPort, bindPort := ports[0], ports[1]
	ing := e.createIngress(t, ingress("web", "default", nil, "www.example.com"), "192.0.2.31")
	// The primary first, as in production: a secondary that starts without its primary waits for its
	// retry timer.
	z := e.start(t, "--source=ingress", "--provider=builtin", fmt.Sprintf("--builtin-listen=127.0.0.1:%d", zkPort),
		"--builtin-zone=example.com", "--builtin-tsig-key-file="+keyFile, "--builtin-axfr-allow=127.0.0.1/32=xfr-key",
		fmt.Sprintf("--builtin-notify=127.0.0.1:%d=xfr-key", bindPort), "--txt-owner-id=e2e", "--policy=sync", "--interval=1h")
	zk := fmt.Sprintf("127.0.0.1:%d", zkPort)
	testbed.Eventually(t, converge, "the built-in server answering", func() error {
		_, got, err := query(zk, "", "udp", "www.example.com", dns.TypeA)
		if err != nil || len(got) != 1 {
			return fmt.Errorf("%v %v", got, err)
		}
		return nil
	})
	bind := testbed.StartBIND(t, testbed.BINDConfig{Port: bindPort, Keys: []testbed.TSIGKey{key}, Zones: []testbed.BINDZone{{
		Name: "example.com", Primary: fmt.Sprintf("127.0.0.1 port %d key %q", zkPort, key.Name),
	}}})

	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("named:\n%s\nzonekeeper:\n%s", tail(bind.Log(), 4000), tail(z.log.String(), 4000))
		}
	})
	expectBIND(t, bind.Addr, converge, "www.example.com", dns.TypeA, "192.0.2.31")
	e.setIngressIP(t, ing, "192.0.2.32")
	expectBIND(t, bind.Addr, 10*time.Second, "www.example.com", dns.TypeA, "192.0.2.32")
	if !z.running() {
		t.Fatal("zonekeeper exited")
	}
}
