package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// An Ingress on a real kube-apiserver is published to a real PowerDNS 4.7 by zonekeeper run with
// external-dns's pdns flags (the API key from the environment, as from a Secret), checked through the
// PowerDNS API and over DNS; a status IP change reaches PowerDNS through an event (resync is 1h);
// deleting the Ingress removes its records under sync; a record already in the zone is never touched.
func TestIngressPublishedToPowerDNS(t *testing.T) {
	kube := testbed.StartKubeAPIServer(t)
	pd := testbed.StartPowerDNS(t, "example.com")
	e := &env{kube: kube, client: kube.Client(t)}
	seedPowerDNS(t, pd, "manual.example.com.", "A", "10.8.8.8")
	ing := e.createIngress(t, ingress("nginx-test-ingress", "default", nil, "dev1.example.com"), "192.168.10.51")

	t.Setenv("EXTERNAL_DNS_PDNS_API_KEY", pd.APIKey)
	z := e.start(t, "--source=ingress", "--provider=pdns", "--pdns-server="+pd.APIURL,
		"--txt-owner-id=e2e", "--policy=sync", "--interval=1h")

	owner := ownership("e2e", "ingress/default/nginx-test-ingress")
	expectPowerDNS(t, pd, converge, "dev1.example.com", dns.TypeA, "192.168.10.51")
	expectPowerDNS(t, pd, time.Second, "a-dev1.example.com", dns.TypeTXT, ownershipOnWire("e2e", "ingress/default/nginx-test-ingress"))
	stored := zoneRRsets(t, pd)
	if got := stored["dev1.example.com. A"]; got != "300 [192.168.10.51]" {
		t.Errorf("API: dev1.example.com A = %q", got)
	}
	// Stored as external-dns stores it: the value's own quotes are PowerDNS's string delimiters.
	if got, want := stored["a-dev1.example.com. TXT"], "300 ["+owner+"]"; got != want {
		t.Errorf("API: a-dev1.example.com TXT = %s, want %s", got, want)
	}

	e.setIngressIP(t, ing, "192.168.10.52")
	expectPowerDNS(t, pd, 5*time.Second, "dev1.example.com", dns.TypeA, "192.168.10.52")

	if err := e.client.NetworkingV1().Ingresses("default").Delete(context.Background(), ing.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	expectPowerDNS(t, pd, 5*time.Second, "dev1.example.com", dns.TypeA)
	expectPowerDNS(t, pd, time.Second, "a-dev1.example.com", dns.TypeTXT)
	expectPowerDNS(t, pd, time.Second, "manual.example.com", dns.TypeA, "10.8.8.8")
	if strings.Contains(z.log.String(), pd.APIKey) {
		t.Error("the API key appears in the log")
	}
}

// powerDNSAnswers asks pdns_server over DNS and returns the data of the given type, sorted.
func powerDNSAnswers(pd *testbed.PowerDNS, name string, qtype uint16) ([]string, error) {
	_, out, err := query(pd.Addr, "", "udp", name, qtype)
	return out, err
}

// expectPowerDNS waits until pdns_server answers name/qtype with exactly want (nothing: no data).
func expectPowerDNS(t *testing.T, pd *testbed.PowerDNS, timeout time.Duration, name string, qtype uint16, want ...string) {
	t.Helper()
	sort.Strings(want)
	testbed.Eventually(t, timeout, fmt.Sprintf("PowerDNS %s %s = %v", name, dns.TypeToString[qtype], want), func() error {
		got, err := powerDNSAnswers(pd, name, qtype)
		if err != nil {
			return err
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			return fmt.Errorf("got %v", got)
		}
		return nil
	})
}

// zoneRRsets reads example.com through the API: "name. TYPE" → "ttl [contents]".
func zoneRRsets(t *testing.T, pd *testbed.PowerDNS) map[string]string {
	t.Helper()
	status, body := pd.API(t, http.MethodGet, "/api/v1/servers/localhost/zones/example.com.", nil)
	if status != http.StatusOK {
		t.Fatalf("GET zone: %d %s", status, body)
	}
	var z struct {
		RRsets []struct {
			Name, Type string
			TTL        int
			Records    []struct{ Content string }
		}
	}
	if err := json.Unmarshal(body, &z); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, rs := range z.RRsets {
		var cs []string
		for _, r := range rs.Records {
			cs = append(cs, r.Content)
		}
		sort.Strings(cs)
		out[rs.Name+" "+rs.Type] = fmt.Sprintf("%d [%s]", rs.TTL, strings.Join(cs, " "))
	}
	return out
}

// seedPowerDNS writes an rrset through the API, as a person or another tool would.
func seedPowerDNS(t *testing.T, pd *testbed.PowerDNS, name, rtype, content string) {
	t.Helper()
	seedPowerDNSZone(t, pd, "example.com.", name, rtype, content)
}

// seedPowerDNSZone writes one record set into a zone straight through the PowerDNS API.
func seedPowerDNSZone(t *testing.T, pd *testbed.PowerDNS, zone, name, rtype, content string) {
	t.Helper()
	body := map[string]any{"rrsets": []map[string]any{{
		"name": name, "type": rtype, "ttl": 3600, "changetype": "REPLACE",
		"records": []map[string]any{{"content": content, "disabled": false}},
	}}}
	if status, out := pd.API(t, http.MethodPatch, "/api/v1/servers/localhost/zones/"+zone, body); status != http.StatusNoContent {
		t.Fatalf("seed %s: %d %s", name, status, out)
	}
}
