package e2e

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/miekg/dns"

	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// Split horizon on BIND: BIND picks a view by the TSIG key of an update (and by client address for
// queries), so each zonekeeper view signs with its own key. One zonekeeper, run with flags, publishes
// the Ingress's private address into BIND's internal view and the public address into its external
// view; clients on 127.0.0.1 and 127.0.0.2 get their own answer.
func TestSplitHorizonOnBINDViews(t *testing.T) {
	kube := testbed.StartKubeAPIServer(t)
	e := &env{kube: kube, client: kube.Client(t)}
	intKey := testbed.NewTSIGKey(t, "int-key", "hmac-sha256")
	extKey := testbed.NewTSIGKey(t, "ext-key", "hmac-sha256")
	bind := testbed.StartBIND(t, testbed.BINDConfig{
		Keys: []testbed.TSIGKey{intKey, extKey},
		Views: []testbed.BINDView{
			{Name: "internal", MatchClients: "!key ext-key; key int-key; 127.0.0.1;", Zones: []testbed.BINDZone{{
				Name: "example.com", UpdateKey: intKey.Name, TransferKey: intKey.Name}}},
			{Name: "external", MatchClients: "key ext-key; any;", Zones: []testbed.BINDZone{{
				Name: "example.com", UpdateKey: extKey.Name, TransferKey: extKey.Name}}},
		},
	})
	dir := t.TempDir()
	for _, k := range []testbed.TSIGKey{intKey, extKey} {
		if err := os.WriteFile(dir+"/"+k.Name, []byte(k.Secret), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	e.createIngress(t, ingress("home", "default", nil, "app.example.com"), "192.168.1.50")
	host, port := splitAddr(t, bind.Addr)
	e.start(t, "--source=ingress", "--provider=rfc2136", "--rfc2136-host="+host, fmt.Sprintf("--rfc2136-port=%d", port),
		"--rfc2136-zone=example.com", "--rfc2136-tsig-secret-alg=hmac-sha256", "--rfc2136-tsig-axfr",
		"--txt-owner-id=home", "--policy=sync",
		"--view=internal", "--view-rfc2136-tsig-keyname=internal=int-key", "--view-rfc2136-tsig-secret-file=internal="+dir+"/int-key",
		"--view=external", "--view-rfc2136-tsig-keyname=external=ext-key", "--view-rfc2136-tsig-secret-file=external="+dir+"/ext-key",
		"--view-targets=external=public", "--public-ip=203.0.113.7")

	expect := func(from, want string) {
		t.Helper()
		testbed.Eventually(t, converge, "app.example.com from "+from, func() error {
			got, err := lookupFrom(from, bind.Addr, "app.example.com", dns.TypeA)
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
}
