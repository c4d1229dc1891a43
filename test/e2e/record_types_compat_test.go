package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/app"
	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// Record types beyond A/AAAA/CNAME, differentially against the real external-dns v0.21.0 and v0.23.0:
// PTR records made by --create-ptr (one record set per address, every name, an object opting out with
// an empty record-type), and DNAME, TLSA, NAPTR, MX and SRV records from a DNSEndpoint, on PowerDNS and
// on BIND (RFC 2136) with a reverse zone beside example.com. For each peer and server:
//
//   - Both tools, each on its own fresh server, given the same DNSEndpoint and the same command line,
//     write the same records and the same ownership TXT names, record by record; the TXT values are the
//     same except the one intended difference pinned below.
//   - A second run of either on its own zone changes nothing.
//   - Each adopts the other's zone with zero changes (same owner id).
//
// The types each comparison manages are those the peer and its provider can read back: v0.21 knows
// neither DNAME nor TLSA, and external-dns's rfc2136 provider lists only A, AAAA, CNAME, DNAME, TXT,
// NS and PTR (v0.23.0 provider/rfc2136/rfc2136.go Records), so MX, SRV, NAPTR and TLSA written to BIND
// would be written again on every run by external-dns itself. CAA is left out: external-dns writes
// "caa-<name>" but its mapper cannot read it back (registry/mapper/mapper.go supportedRecords).

// reverseZone holds the PTR records of 192.0.2.0/24.
const reverseZone = "2.0.192.in-addr.arpa"

// rectypesEndpoint is the DNSEndpoint's spec; with shared, two records share 192.0.2.10 and so one
// PTR record set. BIND gets none: external-dns's rfc2136 provider reads a record set of several PTRs
// back with a trailing dot on all but the first target (v0.23.0 provider/rfc2136/rfc2136.go Records
// appends the raw RR data to an endpoint NewEndpointWithTTL had cleaned), so it rewrites such a
// record set on every run, its own included.
func rectypesEndpoint(shared bool) []map[string]any {
	a := func(name, ip string, ttl int64, ps ...map[string]any) map[string]any {
		m := map[string]any{"dnsName": name, "recordType": "A", "targets": []any{ip}, "recordTTL": ttl}
		if len(ps) > 0 {
			m["providerSpecific"] = []any{ps[0]}
		}
		return m
	}
	rr := func(name, typ string, targets ...any) map[string]any {
		return map[string]any{"dnsName": name, "recordType": typ, "targets": targets, "recordTTL": int64(300)}
	}
	out := []map[string]any{
		a("host.example.com", "192.0.2.10", 300),
		a("solo.example.com", "192.0.2.12", 900),
		a("optout.example.com", "192.0.2.11", 300, map[string]any{"name": "record-type", "value": ""}),
		rr("old.example.com", "DNAME", "new.example.net"),
		rr("sip.example.com", "NAPTR", `100 10 "S" "SIP+D2U" "" _sip._udp.example.com.`),
		rr("_443._tcp.www.example.com", "TLSA", "3 1 1 0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9"),
		rr("mail.example.com", "MX", "10 mx.example.net"),
		rr("_sip._udp.example.com", "SRV", "10 5 5060 sip.example.net."),
	}
	if shared {
		out = append(out, a("shared.example.com", "192.0.2.10", 600))
	}
	return out
}

// rectypesServer is one fresh server with example.com and the reverse zone: the provider flags both
// tools take, and a dump of both zones ("name TYPE" → "ttl [data…]", SOA left out: its serial counts
// each tool's writes).
type rectypesServer struct {
	flags []string
	dump  func(t *testing.T) map[string]string
}

func rectypesBackend(t *testing.T, kind string) rectypesServer {
	if kind == "pdns" {
		pd := testbed.StartPowerDNS(t, "example.com", reverseZone)
		return rectypesServer{
			flags: []string{"--provider=pdns", "--pdns-server=" + pd.APIURL, "--pdns-api-key=" + pd.APIKey},
			dump: func(t *testing.T) map[string]string {
				out := pdnsZoneRRsets(t, pd, "example.com.")
				for k, v := range pdnsZoneRRsets(t, pd, reverseZone+".") {
					out[k] = v
				}
				return out
			},
		}
	}
	key := testbed.NewTSIGKey(t, "rectypes-key", "hmac-sha256")
	bind := testbed.StartBIND(t, testbed.BINDConfig{Keys: []testbed.TSIGKey{key}, Zones: []testbed.BINDZone{
		{Name: "example.com", UpdateKey: key.Name, TransferKey: key.Name},
		{Name: reverseZone, UpdateKey: key.Name, TransferKey: key.Name},
	}})
	host, port := splitAddr(t, bind.Addr)
	return rectypesServer{
		flags: []string{"--provider=rfc2136", "--rfc2136-host=" + host, fmt.Sprintf("--rfc2136-port=%d", port),
			"--rfc2136-zone=example.com", "--rfc2136-zone=" + reverseZone, "--rfc2136-tsig-keyname=" + key.Name,
			"--rfc2136-tsig-secret=" + key.Secret, "--rfc2136-tsig-secret-alg=hmac-sha256", "--rfc2136-tsig-axfr"},
		dump: func(t *testing.T) map[string]string {
			out := axfrRRsets(t, bind.Addr, key, "example.com.")
			for k, v := range axfrRRsets(t, bind.Addr, key, reverseZone+".") {
				out[k] = v
			}
			return out
		},
	}
}

// pdnsZoneRRsets is zoneRRsets for any zone, SOA left out.
func pdnsZoneRRsets(t *testing.T, pd *testbed.PowerDNS, zone string) map[string]string {
	t.Helper()
	status, body := pd.API(t, http.MethodGet, "/api/v1/servers/localhost/zones/"+zone, nil)
	if status != http.StatusOK {
		t.Fatalf("GET zone %s: %d %s", zone, status, body)
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
		if rs.Type == "SOA" {
			continue
		}
		var cs []string
		for _, r := range rs.Records {
			cs = append(cs, strings.ToLower(r.Content))
		}
		sort.Strings(cs)
		out[strings.ToLower(rs.Name)+" "+rs.Type] = fmt.Sprintf("%d [%s]", rs.TTL, strings.Join(cs, " | "))
	}
	return out
}

// axfrRRsets transfers a zone from BIND (TSIG-signed) into the same form, SOA left out.
func axfrRRsets(t *testing.T, addr string, key testbed.TSIGKey, zone string) map[string]string {
	t.Helper()
	m := new(dns.Msg)
	m.SetAxfr(zone)
	m.SetTsig(dns.Fqdn(key.Name), dns.Fqdn(key.Algorithm), 300, time.Now().Unix())
	tr := &dns.Transfer{TsigSecret: map[string]string{dns.Fqdn(key.Name): key.Secret}}
	ch, err := tr.In(m, addr)
	if err != nil {
		t.Fatal(err)
	}
	sets := map[string][]string{}
	ttls := map[string]uint32{}
	for env := range ch {
		if env.Error != nil {
			t.Fatal(env.Error)
		}
		for _, rr := range env.RR {
			h := rr.Header()
			if h.Rrtype == dns.TypeSOA {
				continue
			}
			k := strings.ToLower(h.Name) + " " + dns.TypeToString[h.Rrtype]
			sets[k] = append(sets[k], strings.ToLower(strings.TrimPrefix(rr.String(), h.String())))
			ttls[k] = h.Ttl
		}
	}
	out := map[string]string{}
	for k, cs := range sets {
		sort.Strings(cs)
		out[k] = fmt.Sprintf("%d [%s]", ttls[k], strings.Join(cs, " | "))
	}
	return out
}

func TestRecordTypesMatchExternalDNS(t *testing.T) {
	peers := testbed.ExternalDNSPeers(t)
	kube := testbed.StartKubeAPIServer(t)
	e := &env{kube: kube, client: kube.Client(t)}
	dyn := e.installCRD(t)
	// The PowerDNS comparisons read namespace default, the BIND ones namespace bind (--namespace).
	if _, err := e.client.CoreV1().Namespaces().Create(context.Background(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "bind"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for ns, shared := range map[string]bool{"default": true, "bind": false} {
		obj := dnsEndpointObject("rectypes", rectypesEndpoint(shared)...)
		obj.SetNamespace(ns)
		if _, err := dyn.Resource(source.DNSEndpointResource()).Namespace(ns).Create(context.Background(), obj, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, peer := range peers {
		for _, kind := range []string{"pdns", "rfc2136"} {
			managed := []string{"A", "PTR"}
			switch {
			case kind == "pdns" && peer.Version == "v0.21.0":
				// Not SRV: v0.21's crd source refuses an SRV target ending in a dot and its
				// ValidateSRVRecord one without (external-dns #6357, fixed in v0.22).
				managed = append(managed, "NAPTR", "MX")
			case kind == "pdns":
				managed = append(managed, "NAPTR", "MX", "SRV", "DNAME", "TLSA")
			case peer.Version != "v0.21.0":
				managed = append(managed, "DNAME")
			}
			t.Run(peer.Version+"/"+kind, func(t *testing.T) {
				ed, zk := rectypesBackend(t, kind), rectypesBackend(t, kind)
				ns := "default"
				if kind == "rfc2136" {
					ns = "bind"
				}
				common := []string{"--source=crd", "--namespace=" + ns, "--registry=txt", "--txt-owner-id=shared", "--policy=sync",
					"--domain-filter=example.com", "--domain-filter=" + reverseZone, "--create-ptr",
					"--kubeconfig=" + kube.Kubeconfig}
				for _, m := range managed {
					common = append(common, "--managed-record-types="+m)
				}
				edFlags := append(append([]string{}, common...), ed.flags...)
				zkFlags := append(append([]string{}, common...), zk.flags...)

				runExternalDNSWith(t, peer, edFlags...)
				if code, out, errOut := e.run(t, append([]string{"--once"}, zkFlags...)...); code != app.ExitOK {
					t.Fatalf("zonekeeper --once: exit %d\n%s\n%s", code, out, tail(errOut, 4000))
				}
				compareRecordTypeZones(t, kind, managed, ed.dump(t), zk.dump(t))

				// Second runs on their own zones, then each on the other's: nothing to do.
				if log := runExternalDNSWith(t, peer, edFlags...); !strings.Contains(log, "All records are already up to date") {
					t.Errorf("external-dns's second run on its own zone changes it:\n%s", tail(log, 4000))
				}
				e.expectPlan(t, app.ExitOK, "No changes", zkFlags...)
				if log := runExternalDNSWith(t, peer, zkFlags...); !strings.Contains(log, "All records are already up to date") {
					t.Errorf("external-dns wants to change zonekeeper's zone:\n%s", tail(log, 6000))
				}
				e.expectPlan(t, app.ExitOK, "No changes", edFlags...)
			})
		}
	}
}

// The record-type annotation under each prefix, against external-dns v0.23.0 (which reads the alpha
// prefix with --enable-legacy-annotation-prefix, as its peer is run): Ingresses asking for PTRs under
// either prefix, opting out, and not asking, without --create-ptr; same zones, each adopts the other's.
// v0.21 reads only the alpha prefix, which zonekeeper reads beside the other: it is not compared.
func TestRecordTypeAnnotationMatchesExternalDNS(t *testing.T) {
	var peer *testbed.ExternalDNSPeer
	for _, p := range testbed.ExternalDNSPeers(t) {
		if p.Version == "v0.23.0" {
			peer = &p
		}
	}
	if peer == nil {
		t.Skip("external-dns v0.23.0 not built")
	}
	kube := testbed.StartKubeAPIServer(t)
	e := &env{kube: kube, client: kube.Client(t)}
	e.createIngress(t, ingress("ptr-ga", "default", map[string]string{"external-dns.kubernetes.io/record-type": "ptr"}, "ga.example.com"), "192.0.2.21")
	e.createIngress(t, ingress("ptr-alpha", "default", map[string]string{"external-dns.alpha.kubernetes.io/record-type": "PTR"}, "alpha.example.com"), "192.0.2.22")
	e.createIngress(t, ingress("ptr-off", "default", map[string]string{"external-dns.kubernetes.io/record-type": ""}, "off.example.com"), "192.0.2.23")
	e.createIngress(t, ingress("plain", "default", nil, "plain.example.com"), "192.0.2.24")

	ed, zk := rectypesBackend(t, "pdns"), rectypesBackend(t, "pdns")
	common := []string{"--source=ingress", "--registry=txt", "--txt-owner-id=shared", "--policy=sync",
		"--domain-filter=example.com", "--domain-filter=" + reverseZone, "--managed-record-types=A",
		"--managed-record-types=PTR", "--kubeconfig=" + kube.Kubeconfig}
	edFlags := append(append([]string{}, common...), ed.flags...)
	zkFlags := append(append([]string{}, common...), zk.flags...)
	runExternalDNSWith(t, *peer, edFlags...)
	if code, out, errOut := e.run(t, append([]string{"--once"}, zkFlags...)...); code != app.ExitOK {
		t.Fatalf("zonekeeper --once: exit %d\n%s\n%s", code, out, tail(errOut, 4000))
	}
	edZone, zkZone := ed.dump(t), zk.dump(t)
	for k, a := range edZone {
		b := zkZone[k]
		if strings.HasPrefix(k, "ptr-") && strings.HasSuffix(k, " TXT") {
			b = ptrResource.ReplaceAllString(b, "") // the pinned difference (compareRecordTypeZones)
		}
		if a != b {
			t.Errorf("%s differs:\nexternal-dns: %q\nzonekeeper:   %q", k, a, zkZone[k])
		}
	}
	if len(edZone) != len(zkZone) {
		t.Errorf("external-dns's zone has %d record sets, zonekeeper's %d:\n%v\n%v", len(edZone), len(zkZone), edZone, zkZone)
	}
	for _, k := range []string{"21." + reverseZone + ". PTR", "22." + reverseZone + ". PTR"} {
		if zkZone[k] == "" {
			t.Errorf("%s missing: %v", k, zkZone)
		}
	}
	for _, k := range []string{"23." + reverseZone + ". PTR", "24." + reverseZone + ". PTR"} {
		if zkZone[k] != "" {
			t.Errorf("%s made without being asked for: %v", k, zkZone)
		}
	}
	if log := runExternalDNSWith(t, *peer, zkFlags...); !strings.Contains(log, "All records are already up to date") {
		t.Errorf("external-dns wants to change zonekeeper's zone:\n%s", tail(log, 6000))
	}
	e.expectPlan(t, app.ExitOK, "No changes", edFlags...)
}

// compareRecordTypeZones checks the two zones record by record. Two differences are pinned:
//
//   - Intended: the ownership TXT of a PTR names the object (external-dns/resource=crd/<ns>/rectypes)
//     in zonekeeper's zone, so that a refusal reaches that object; external-dns's PTR records carry no
//     resource (v0.23.0 endpoint.NewPTREndpoint makes them with empty labels). Neither tool rewrites a
//     TXT for its resource alone, so each adopts the other's.
//   - On BIND, external-dns writes every ownership TXT with TTL 0 (its --rfc2136-min-ttl default, as
//     the TXT endpoints have no TTL), zonekeeper with the TTL of the record it guards. Neither compares
//     the TTL of a TXT.
func compareRecordTypeZones(t *testing.T, kind string, managed []string, ed, zk map[string]string) {
	t.Helper()
	keys := map[string]bool{}
	for k := range ed {
		keys[k] = true
	}
	for k := range zk {
		keys[k] = true
	}
	var sorted []string
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		a, b := ed[k], zk[k]
		if a == b {
			continue
		}
		if strings.HasSuffix(k, " TXT") {
			if kind == "rfc2136" {
				a, b = txtData(a), txtData(b)
			}
			if strings.HasPrefix(k, "ptr-") {
				b = ptrResource.ReplaceAllString(b, "")
			}
			if a == b {
				continue // the pinned differences
			}
		}
		t.Errorf("%s differs:\nexternal-dns: %q\nzonekeeper:   %q", k, a, b)
	}
	// What each comparison must have seen, so that an empty pair of zones cannot pass.
	want := []string{
		"host.example.com. A", "a-host.example.com. TXT",
		"10." + reverseZone + ". PTR", "ptr-10." + reverseZone + ". TXT",
		"12." + reverseZone + ". PTR",
	}
	for _, m := range managed {
		switch m {
		case "DNAME":
			want = append(want, "old.example.com. DNAME", "dname-old.example.com. TXT")
		case "TLSA":
			want = append(want, "_443._tcp.www.example.com. TLSA", "tlsa-_443._tcp.www.example.com. TXT")
		case "NAPTR":
			want = append(want, "sip.example.com. NAPTR", "naptr-sip.example.com. TXT")
		case "MX":
			want = append(want, "mail.example.com. MX", "mx-mail.example.com. TXT")
		case "SRV":
			want = append(want, "_sip._udp.example.com. SRV", "srv-_sip._udp.example.com. TXT")
		}
	}
	for _, k := range want {
		if zk[k] == "" {
			t.Errorf("%s missing from zonekeeper's zone: %v", k, zk)
		}
	}
	if got := zk["10."+reverseZone+". PTR"]; kind == "pdns" && (!strings.Contains(got, "host.example.com.") || !strings.Contains(got, "shared.example.com.") || !strings.HasPrefix(got, "300 ")) {
		t.Errorf("the PTR of 192.0.2.10 does not name both records with the lower TTL: %q", got)
	}
	if _, ok := zk["11."+reverseZone+". PTR"]; ok {
		t.Errorf("optout.example.com asked for no PTR with an empty record-type, and has one")
	}
	if !reflect.DeepEqual(len(ed), len(zk)) {
		t.Errorf("external-dns's zone has %d record sets, zonekeeper's %d", len(ed), len(zk))
	}
}

// ptrResource is the resource zonekeeper writes into a PTR's ownership TXT.
var ptrResource = regexp.MustCompile(`,external-dns/resource=[a-z]+/[a-z0-9-]+/[a-z0-9-]+`)

// txtData drops the TTL from a dumped record set.
func txtData(v string) string {
	_, data, _ := strings.Cut(v, " ")
	return data
}
