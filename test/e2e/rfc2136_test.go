package e2e

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// An Ingress on a real kube-apiserver is published to a real BIND by zonekeeper run with external-dns's
// rfc2136 flags (the secret from the environment, as from a Secret). BIND answers the status IP,
// follows a status change through an event, and loses the records when the Ingress is deleted under
// the sync policy; a record someone else put in the zone stays, and the secret never reaches the log.
func TestIngressPublishedToBIND(t *testing.T) {
	kube := testbed.StartKubeAPIServer(t)
	e := &env{kube: kube, client: kube.Client(t)}
	key := testbed.NewTSIGKey(t, "zonekeeper-key", "hmac-sha256")
	bind := testbed.StartBIND(t, testbed.BINDConfig{Keys: []testbed.TSIGKey{key}, Zones: []testbed.BINDZone{{
		Name: "example.com", UpdateKey: key.Name, TransferKey: key.Name, Records: []string{"manual IN A 10.8.8.8"},
	}}})
	ing := e.createIngress(t, ingress("nginx-test-ingress", "default", nil, "dev1.example.com"), "192.168.10.51")

	host, port := splitAddr(t, bind.Addr)
	t.Setenv("EXTERNAL_DNS_RFC2136_TSIG_SECRET", key.Secret)
	z := e.start(t, "--source=ingress", "--provider=rfc2136", "--rfc2136-host="+host, fmt.Sprintf("--rfc2136-port=%d", port),
		"--rfc2136-zone=example.com", "--rfc2136-tsig-keyname="+key.Name, "--rfc2136-tsig-secret-alg=hmac-sha256",
		"--rfc2136-tsig-axfr", "--txt-owner-id=e2e", "--policy=sync", "--interval=1h")

	expectBIND(t, bind.Addr, converge, "dev1.example.com", dns.TypeA, "192.168.10.51")
	expectBIND(t, bind.Addr, time.Second, "a-dev1.example.com", dns.TypeTXT, ownershipOnWire("e2e", "ingress/default/nginx-test-ingress"))

	// A status change reaches BIND through an informer event (the resync is an hour away).
	e.setIngressIP(t, ing, "192.168.10.52")
	expectBIND(t, bind.Addr, 5*time.Second, "dev1.example.com", dns.TypeA, "192.168.10.52")

	if err := e.client.NetworkingV1().Ingresses("default").Delete(context.Background(), ing.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	expectBIND(t, bind.Addr, 5*time.Second, "dev1.example.com", dns.TypeA)
	expectBIND(t, bind.Addr, time.Second, "a-dev1.example.com", dns.TypeTXT)
	expectBIND(t, bind.Addr, time.Second, "manual.example.com", dns.TypeA, "10.8.8.8")
	if strings.Contains(z.log.String(), key.Secret) {
		t.Fatal("the TSIG secret is in the log")
	}
}

func splitAddr(t *testing.T, addr string) (string, int) {
	t.Helper()
	i := strings.LastIndex(addr, ":")
	var port int
	if _, err := fmt.Sscanf(addr[i+1:], "%d", &port); err != nil {
		t.Fatal(err)
	}
	return addr[:i], port
}

// expectBIND waits until BIND answers name/qtype with exactly want (nothing, when want is empty).
func expectBIND(t *testing.T, addr string, timeout time.Duration, name string, qtype uint16, want ...string) {
	t.Helper()
	sort.Strings(want)
	testbed.Eventually(t, timeout, fmt.Sprintf("BIND %s %s = %v", name, dns.TypeToString[qtype], want), func() error {
		rcode, got, err := query(addr, "", "tcp", name, qtype)
		if err != nil {
			return err
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			return fmt.Errorf("got %v (rcode %s)", got, dns.RcodeToString[rcode])
		}
		return nil
	})
}
