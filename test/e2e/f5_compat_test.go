package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/zonekeeper/zonekeeper/internal/source/sourcetest"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// f5Server is one VirtualServer or TransportServer of the differential fixture. address is
// spec.virtualServerAddress ("" for an ipamLabel, the CRD wants one of them); vsAddress is
// status.vsAddress ("-" for no status at all, "" for a status without it, which the CRD defaults to
// "None").
type f5Server struct {
	ns, name, host     string
	aliases            []string
	address, vsAddress string
	labels             map[string]string
	kv                 []string
}

func (s f5Server) object(kind string) *unstructured.Unstructured {
	spec := map[string]any{}
	if kind == "TransportServer" {
		spec = map[string]any{"virtualServerPort": int64(8443), "mode": "performance",
			"pool": map[string]any{"service": s.name + "-backend", "servicePort": int64(443)}}
	}
	if s.host != "" {
		spec["host"] = s.host
	}
	if len(s.aliases) > 0 {
		var a []any
		for _, h := range s.aliases {
			a = append(a, h)
		}
		spec["hostAliases"] = a
	}
	if s.address != "" {
		spec["virtualServerAddress"] = s.address
	} else {
		spec["ipamLabel"] = "Production"
	}
	var status map[string]any
	switch s.vsAddress {
	case "-":
	case "":
		status = map[string]any{"status": "Pending"}
	default:
		status = map[string]any{"vsAddress": s.vsAddress, "status": "Ok"}
	}
	u := sourcetest.Object("cis.f5.com/v1", kind, s.ns, s.name, sourcetest.Annotations(s.kv...), spec, status)
	u.SetLabels(s.labels)
	return u
}

// f5Fixture is the differential test's cluster: 26 VirtualServers and 23 TransportServers in default
// and team-f5, covering spec.virtualServerAddress (IPv4, IPv6, a CIDR the CRD lets by), status.vsAddress
// (an address, a hostname, none at all, "None" by default, "none", "NONE"; an address other than the
// spec's), an ipamLabel instead of a spec address, the target annotation (IP, hostname, two families,
// GA prefix), spec.host (set, none, mixed case, wildcard, shared by two objects), hostAliases, ttl
// (seconds, durations, bad), annotations F5 objects do not read (hostname, set-identifier, aws-weight,
// alias), the controller annotation and labels.
func f5Fixture() []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	none := map[string]string{"app": "none"}
	web := map[string]string{"app": "web"}
	for _, s := range []f5Server{
		{"default", "v01", "v01.example.com", nil, "192.0.2.1", "192.0.2.1", web, nil},
		{"default", "v02", "v02.example.com", nil, "", "192.0.2.2", nil, nil},
		{"default", "v03", "v03.example.com", nil, "192.0.2.3", "-", nil, nil},
		{"default", "v04", "v04.example.com", nil, "192.0.2.4", "", nil, []string{"target", "203.0.113.4"}},
		{"default", "v05", "v05.example.com", nil, "192.0.2.5", "10.0.0.5", nil, nil},
		{"default", "v06", "v06.example.com", nil, "192.0.2.6", "192.0.2.6", nil, []string{"target", "203.0.113.6"}},
		{"default", "v07", "v07.example.com", nil, "", "192.0.2.7", nil, []string{"target", "lb-v07.example.net."}},
		{"default", "v08", "v08.example.com", nil, "2001:db8::8", "2001:db8::8", nil, nil},
		{"default", "v09", "v09.example.com", []string{"v09a.example.com", "v09b.example.com"}, "192.0.2.9", "192.0.2.9", web, nil},
		{"default", "v10", "", []string{"v10-alias.example.com"}, "192.0.2.10", "192.0.2.10", nil, nil},
		{"default", "v11", "", nil, "192.0.2.11", "192.0.2.11", nil, nil},
		{"default", "v12", "v12.example.com", nil, "192.0.2.12", "192.0.2.12", nil, []string{"ttl", "120"}},
		{"default", "v13", "v13.example.com", nil, "192.0.2.13", "192.0.2.13", nil, []string{"ttl", "5m"}},
		{"default", "v14", "v14.example.com", nil, "192.0.2.14", "192.0.2.14", nil, []string{"ttl", "abc"}},
		{"default", "v15", "v15.example.com", nil, "192.0.2.15", "192.0.2.15", nil, []string{"hostname", "v15-ann.example.com"}},
		{"default", "v16", "V16-Mixed.Example.com", nil, "192.0.2.16", "192.0.2.16", nil, nil},
		{"default", "v17", "*.v17.example.com", nil, "192.0.2.17", "192.0.2.17", nil, nil},
		{"default", "v18", "shared.example.com", nil, "192.0.2.18", "192.0.2.18", nil, nil},
		{"team-f5", "v19", "shared.example.com", nil, "192.0.2.19", "192.0.2.19", web, nil},
		{"team-f5", "v20", "v20.example.com", nil, "192.0.2.20", "192.0.2.20", nil, []string{"controller", "someone-else"}},
		{"team-f5", "v21", "v21.example.com", nil, "192.0.2.21", "192.0.2.21", none, nil},
		{"team-f5", "v22", "v22.example.com", nil, "192.0.2.22", "none", nil, []string{"target", "203.0.113.22"}},
		{"team-f5", "v23", "v23.example.com", nil, "192.0.2.23", "192.0.2.23", nil, []string{"external-dns.kubernetes.io/target", "203.0.113.23"}},
		{"team-f5", "v24", "v24.example.com", nil, "192.0.2.24/24", "192.0.2.24", nil, nil},
		{"team-f5", "v25", "v25.example.com", nil, "192.0.2.25", "192.0.2.25", web, []string{"set-identifier", "blue", "aws-weight", "10", "alias", "true"}},
		{"team-f5", "v26", "v26.example.com", nil, "2001:db8::26", "2001:db8::26", nil, []string{"target", "192.0.2.126,2001:db8::126", "ttl", "30"}},
	} {
		out = append(out, s.object("VirtualServer"))
	}
	for _, s := range []f5Server{
		{"default", "t01", "t01.example.com", nil, "192.0.2.101", "192.0.2.101", web, nil},
		{"default", "t02", "t02.example.com", nil, "", "192.0.2.102", nil, nil},
		{"default", "t03", "t03.example.com", nil, "192.0.2.103", "-", nil, []string{"target", "203.0.113.103"}},
		{"default", "t04", "t04.example.com", nil, "192.0.2.104", "", nil, nil},
		{"default", "t05", "t05.example.com", nil, "192.0.2.105", "10.0.0.105", nil, nil},
		{"default", "t06", "t06.example.com", nil, "192.0.2.106", "192.0.2.106", nil, []string{"target", "203.0.113.106"}},
		{"default", "t07", "t07.example.com", nil, "", "192.0.2.107", nil, []string{"target", "lb-t07.example.net"}},
		{"default", "t08", "t08.example.com", nil, "2001:db8::108", "2001:db8::108", nil, nil},
		{"default", "t09", "", nil, "192.0.2.109", "192.0.2.109", nil, nil},
		{"default", "t10", "t10.example.com", nil, "192.0.2.110", "192.0.2.110", nil, []string{"ttl", "60"}},
		{"default", "t11", "t11.example.com", nil, "192.0.2.111", "192.0.2.111", nil, []string{"ttl", "1h"}},
		{"default", "t12", "t12.example.com", nil, "192.0.2.112", "192.0.2.112", nil, []string{"ttl", "-5"}},
		{"default", "t13", "t13.example.com", nil, "192.0.2.113", "192.0.2.113", nil, []string{"hostname", "t13-ann.example.com"}},
		{"default", "t14", "T14-Mixed.Example.com", nil, "192.0.2.114", "192.0.2.114", nil, nil},
		{"default", "t15", "*.t15.example.com", nil, "192.0.2.115", "192.0.2.115", nil, nil},
		{"default", "t16", "shared-ts.example.com", nil, "192.0.2.116", "192.0.2.116", nil, nil},
		{"team-f5", "t17", "shared-ts.example.com", nil, "2001:db8::117", "2001:db8::117", web, nil},
		{"team-f5", "t18", "t18.example.com", nil, "192.0.2.118", "192.0.2.118", nil, []string{"controller", "someone-else"}},
		{"team-f5", "t19", "t19.example.com", nil, "192.0.2.119", "192.0.2.119", none, nil},
		{"team-f5", "t20", "t20.example.com", nil, "192.0.2.120", "192.0.2.120", nil, []string{"external-dns.kubernetes.io/ttl", "300"}},
		{"team-f5", "t21", "t21.example.com", nil, "192.0.2.121", "NONE", nil, []string{"target", "203.0.113.121"}},
		{"team-f5", "t22", "t22.example.com", nil, "192.0.2.122", "192.0.2.122", nil, []string{"set-identifier", "green", "aws-weight", "5"}},
		{"team-f5", "t23", "t23.example.com", nil, "", "lb-t23.example.net", nil, []string{"ttl", "600"}},
	} {
		out = append(out, s.object("TransportServer"))
	}
	return out
}

// TestF5SourcesMatchExternalDNS compares the f5-virtualserver and f5-transportserver sources with
// external-dns's, both sources in one run.
func TestF5SourcesMatchExternalDNS(t *testing.T) {
	base := append(crdCluster(t, testbed.InstallF5, "f5-virtualserver", f5Fixture()), "--source=f5-transportserver")
	wildcard := diffPin{onlyED: true, re: regexp.MustCompile(`^(a-)?\*\.(v17|t15)\.`),
		why: "a wildcard host on CoreDNS: external-dns writes a literal \"*\" label, zonekeeper's coredns provider refuses it", refused: true}
	cidr := diffPin{onlyED: true, re: regexp.MustCompile(`^((a|cname)-)?v24\.`),
		why: "a spec.virtualServerAddress that is a CIDR (the CRD's pattern checks only its start): external-dns publishes a CNAME to it, zonekeeper reports it"}
	controller := diffPin{onlyED: true, v021: true, re: regexp.MustCompile(`^(a-)?(v20|t18)\.`),
		why: "the controller annotation: external-dns v0.21's f5 sources ignore it, v0.23 and zonekeeper skip the object"}
	gaED := diffPin{onlyED: true, v021: true, re: regexp.MustCompile(`^(a-)?(v23|t20)\.`),
		why: "external-dns.kubernetes.io/ annotations: v0.21 reads only the alpha prefix (its records)"}
	gaZK := diffPin{v021: true, re: regexp.MustCompile(`^(a-)?(v23|t20)\.`),
		why: "external-dns.kubernetes.io/ annotations: v0.23 and zonekeeper read them (zonekeeper's records)"}
	sharedED := diffPin{optional: true, onlyED: true, re: regexp.MustCompile(`^a-shared(-ts)?\.`), why: "merged owner (external-dns)"}
	sharedZK := diffPin{optional: true, re: regexp.MustCompile(`^a-shared(-ts)?\.`), why: "merged owner (zonekeeper)"}
	label := diffPin{onlyED: true, v021: true, re: regexp.MustCompile(`^(a-)?(v21|t19)\.`),
		why: "--label-filter: external-dns v0.21's f5 sources ignore it, v0.23 and zonekeeper apply it"}
	all := []diffPin{wildcard, cidr, controller, gaED, gaZK, sharedED, sharedZK}
	sets := []diffSet{
		{nil, all, 60},
		// external-dns v0.23 runs the template over F5 objects but gives its names the targets of
		// --target-template only (v0.21 ignores it): no template name is published, by either.
		{[]string{"--fqdn-template={{.Name}}.{{.Namespace}}.tmpl.example.com"}, all, 60},
		{[]string{"--fqdn-template={{.Spec.Host}}.tmpl.example.com", "--combine-fqdn-annotation", "--ignore-hostname-annotation"}, all, 60},
		{[]string{"--namespace=team-f5", "--label-filter=app!=none"}, []diffPin{cidr, controller, gaED, gaZK, label}, 20},
		{[]string{"--annotation-filter=external-dns.alpha.kubernetes.io/ttl"}, nil, 12},
	}
	compareWithExternalDNS(t, base, sets)
}

// A running zonekeeper started before the F5 CRDs exist waits for them, then publishes a VirtualServer
// and a TransportServer to CoreDNS and tells each what it did: Published, a bad ttl, and an annotation
// these kinds do not read, named.
func TestF5SourcesOnCoreDNSWithEvents(t *testing.T) {
	e := startEnv(t)
	zk := e.start(t, "--source=f5-virtualserver", "--source=f5-transportserver", "--txt-owner-id=e2e", "--policy=sync")
	testbed.Eventually(t, converge, "the sources waiting for their CRDs", func() error {
		waiting := map[string]bool{}
		for _, line := range strings.Split(zk.log.String(), "\n") {
			for _, kind := range []string{"f5-virtualserver", "f5-transportserver"} {
				if strings.Contains(line, "Source cannot run fully") && strings.Contains(line, "source="+kind+" ") {
					waiting[kind] = true
				}
			}
		}
		if len(waiting) < 2 {
			return fmt.Errorf("waiting: %v", waiting)
		}
		return nil
	})
	testbed.InstallF5(t, e.kube)
	dyn, err := dynamic.NewForConfig(e.kube.Config)
	if err != nil {
		t.Fatal(err)
	}
	sourcetest.Create(t, e.client, dyn,
		f5Server{"default", "web", "vs.example.com", []string{"vs-alias.example.com"}, "192.0.2.70", "192.0.2.70", nil,
			[]string{"ttl", "soon", "hostname", "other.example.com"}}.object("VirtualServer"),
		f5Server{"default", "tcp", "ts.example.com", nil, "", "192.0.2.71", nil, []string{"ttl", "30", "aws-weight", "5"}}.object("TransportServer"),
	)
	// The sources retry with backoff (5 s, doubling) until their CRDs are served.
	e.expectAnswer(t, 2*time.Minute, "vs.example.com", dns.TypeA, "192.0.2.70")
	e.expectAnswer(t, 2*time.Minute, "ts.example.com", dns.TypeA, "192.0.2.71")
	e.expectAnswer(t, converge, "vs-alias.example.com", dns.TypeA, "192.0.2.70")
	e.expectAnswer(t, converge, "a-vs.example.com", dns.TypeTXT, ownership("e2e", "f5-virtualserver/default/web"))
	e.expectAnswer(t, converge, "a-ts.example.com", dns.TypeTXT, ownership("e2e", "f5-transportserver/default/tcp"))
	e.expectEvent(t, "default", "VirtualServer", "web", "Published", "vs.example.com")
	e.expectEvent(t, "default", "VirtualServer", "web", "InvalidAnnotation", "external-dns.alpha.kubernetes.io/ttl", "soon")
	e.expectEvent(t, "default", "VirtualServer", "web", "InvalidAnnotation", "external-dns.alpha.kubernetes.io/hostname", "not read on a VirtualServer")
	e.expectEvent(t, "default", "TransportServer", "tcp", "Published", "ts.example.com")
	e.expectEvent(t, "default", "TransportServer", "tcp", "InvalidAnnotation", "external-dns.alpha.kubernetes.io/aws-weight", "not read on a TransportServer")
}
