package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// Active Directory DNS takes only Kerberos-signed (GSS-TSIG) updates. A loopback MIT Kerberos realm
// and a BIND with tkey-gssapi-keytab whose zone grants updates to one Kerberos principal only stand in
// for it: zonekeeper, run with external-dns's --rfc2136-gss-tsig flags (the password from the
// environment, KRB5_CONFIG naming the realm's krb5.conf), publishes an Ingress and a Service with
// their ownership records, reads the zone back by AXFR and deletes the records with their objects
// under the sync policy. The password never reaches the log.
func TestRFC2136GSSTSIGPublishes(t *testing.T) {
	const user, password = "zonekeeper", "e2e-Kerberos-Passw0rd"
	kdc := testbed.StartKDC(t, testbed.KDCConfig{Users: map[string]string{user: password}, Hosts: []string{"localhost"}})
	bind := testbed.StartBIND(t, testbed.BINDConfig{GSSAPIKeytab: kdc.ServiceKeytab, Env: kdc.Env, Zones: []testbed.BINDZone{{
		Name: "example.com", TransferACL: "127.0.0.1;", Records: []string{"manual IN A 10.8.8.8"},
		UpdatePolicy: fmt.Sprintf("grant %s@%s zonesub ANY;", user, kdc.Realm),
	}}})
	kube := testbed.StartKubeAPIServer(t)
	e := &env{kube: kube, client: kube.Client(t)}
	ing := e.createIngress(t, ingress("web", "default", nil, "web.example.com"), "192.168.20.1")
	svc := e.createService(t, loadBalancer("api", "default", map[string]string{
		"external-dns.alpha.kubernetes.io/hostname": "api.example.com"}), "192.168.20.2")

	_, port := splitAddr(t, bind.Addr)
	t.Setenv("KRB5_CONFIG", kdc.ConfigFile)
	t.Setenv("EXTERNAL_DNS_RFC2136_KERBEROS_PASSWORD", password)
	z := e.start(t, "--source=ingress", "--source=service", "--provider=rfc2136", "--rfc2136-host=localhost",
		fmt.Sprintf("--rfc2136-port=%d", port), "--rfc2136-zone=example.com", "--rfc2136-gss-tsig",
		"--rfc2136-kerberos-realm="+strings.ToLower(kdc.Realm), "--rfc2136-kerberos-username="+user,
		"--txt-owner-id=e2e", "--policy=sync", "--interval=1h")

	expectBIND(t, bind.Addr, converge, "web.example.com", dns.TypeA, "192.168.20.1")
	expectBIND(t, bind.Addr, converge, "api.example.com", dns.TypeA, "192.168.20.2")
	expectBIND(t, bind.Addr, time.Second, "a-web.example.com", dns.TypeTXT, ownershipOnWire("e2e", "ingress/default/web"))

	// Deleting needs the zone read back (AXFR) and the ownership records in it.
	if err := e.client.NetworkingV1().Ingresses("default").Delete(context.Background(), ing.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	expectBIND(t, bind.Addr, converge, "web.example.com", dns.TypeA)
	expectBIND(t, bind.Addr, time.Second, "a-web.example.com", dns.TypeTXT)
	if err := e.client.CoreV1().Services("default").Delete(context.Background(), svc.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	expectBIND(t, bind.Addr, converge, "api.example.com", dns.TypeA)
	expectBIND(t, bind.Addr, time.Second, "manual.example.com", dns.TypeA, "10.8.8.8")
	if strings.Contains(z.log.String(), password) {
		t.Fatal("the Kerberos password is in the log")
	}
}

// A wrong Kerberos password does not crash zonekeeper: the sync fails with an error naming the
// principal and the flag to check, and nothing is written.
func TestRFC2136GSSTSIGWrongPassword(t *testing.T) {
	const user = "zonekeeper"
	kdc := testbed.StartKDC(t, testbed.KDCConfig{Users: map[string]string{user: "the-right-one"}, Hosts: []string{"localhost"}})
	bind := testbed.StartBIND(t, testbed.BINDConfig{GSSAPIKeytab: kdc.ServiceKeytab, Env: kdc.Env, Zones: []testbed.BINDZone{{
		Name: "example.com", TransferACL: "127.0.0.1;", UpdatePolicy: fmt.Sprintf("grant %s@%s zonesub ANY;", user, kdc.Realm),
	}}})
	kube := testbed.StartKubeAPIServer(t)
	e := &env{kube: kube, client: kube.Client(t)}
	e.createIngress(t, ingress("web", "default", nil, "web.example.com"), "192.168.20.1")

	_, port := splitAddr(t, bind.Addr)
	t.Setenv("KRB5_CONFIG", kdc.ConfigFile)
	t.Setenv("EXTERNAL_DNS_RFC2136_KERBEROS_PASSWORD", "a-wrong-password")
	z := e.start(t, "--source=ingress", "--provider=rfc2136", "--rfc2136-host=localhost",
		fmt.Sprintf("--rfc2136-port=%d", port), "--rfc2136-zone=example.com", "--rfc2136-gss-tsig",
		"--rfc2136-kerberos-realm="+kdc.Realm, "--rfc2136-kerberos-username="+user,
		"--txt-owner-id=e2e", "--policy=sync", "--interval=1h")
	testbed.Eventually(t, converge, "the Kerberos error in the log", func() error {
		if log := z.log.String(); !strings.Contains(log, "--rfc2136-kerberos-password") || !strings.Contains(log, user+"@"+kdc.Realm) {
			return fmt.Errorf("not yet")
		}
		return nil
	})
	select {
	case code := <-z.done:
		t.Fatalf("zonekeeper exited (%d)", code)
	default:
	}
	expectBIND(t, bind.Addr, time.Second, "web.example.com", dns.TypeA)
	if strings.Contains(z.log.String(), "a-wrong-password") {
		t.Fatal("the Kerberos password is in the log")
	}
}
