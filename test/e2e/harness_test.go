// Package e2e runs zonekeeper end to end, in-process through app.Main, against a real kube-apiserver,
// a real etcd and a real CoreDNS serving what zonekeeper writes. Assertions are DNS answers.
package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"
	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/client-go/kubernetes"

	"github.com/zonekeeper/zonekeeper/internal/app"
	"github.com/zonekeeper/zonekeeper/internal/dnstext"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// env is one cluster and one DNS: kube-apiserver (with its own etcd), and a separate etcd that CoreDNS
// serves example.com from, so the DNS etcd can be stopped without stopping the cluster.
type env struct {
	kube    *testbed.KubeAPIServer
	client  kubernetes.Interface
	dnsEtcd *testbed.Etcd
	coredns *testbed.CoreDNS
	// peer is the external-dns version runExternalDNS runs (compatibility tests run once per peer).
	peer testbed.ExternalDNSPeer
}

func startEnv(t testing.TB) *env {
	t.Helper()
	kube := testbed.StartKubeAPIServer(t)
	etcd := testbed.StartEtcd(t)
	cdns := testbed.StartCoreDNSForEtcd(t, etcd.Endpoint, "/skydns", "example.com.")
	t.Setenv("ETCD_URLS", etcd.Endpoint)
	return &env{kube: kube, client: kube.Client(t), dnsEtcd: etcd, coredns: cdns}
}

// instance is one zonekeeper process (in-process), with its log and its health/metrics address.
type instance struct {
	log    *testbed.LogBuffer
	cancel context.CancelFunc
	done   chan int
	// opsURL is http://127.0.0.1:PORT serving /healthz, /readyz and /metrics.
	opsURL   string
	stopOnce sync.Once
}

// start runs zonekeeper against the env's cluster and DNS with the given extra flags.
func (e *env) start(t testing.TB, flags ...string) *instance {
	t.Helper()
	return e.startWith(t, e.kube.Kubeconfig, flags...)
}

// startWith runs zonekeeper with another kubeconfig (another identity).
func (e *env) startWith(t testing.TB, kubeconfig string, flags ...string) *instance {
	t.Helper()
	port := testbed.FreePort(t)
	args := append([]string{
		"--kubeconfig=" + kubeconfig,
		fmt.Sprintf("--metrics-address=127.0.0.1:%d", port),
		"--provider=coredns",
		"--registry=txt",
		"--domain-filter=example.com",
		"--log-level=debug",
	}, flags...)
	ctx, cancel := context.WithCancel(context.Background())
	in := &instance{log: &testbed.LogBuffer{}, cancel: cancel, done: make(chan int, 1), opsURL: fmt.Sprintf("http://127.0.0.1:%d", port)}
	secrets := configuredSecrets(args)
	go func() { in.done <- app.Main(ctx, args, &bytes.Buffer{}, in.log, os.Getenv) }()
	t.Cleanup(func() {
		in.stop(t)
		checkNoSecretsLogged(t, "zonekeeper", in.log.String(), secrets)
		if t.Failed() {
			t.Logf("zonekeeper log (%v):\n%s", flags, tail(in.log.String(), 8000))
		}
	})
	return in
}

// get fetches a path of the health/metrics server.
func (in *instance) get(path string) (int, string, error) {
	resp, err := http.Get(in.opsURL + path)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// stop cancels the instance and waits for it to return; calling it again does nothing.
func (in *instance) stop(t testing.TB) {
	in.stopOnce.Do(func() {
		in.cancel()
		select {
		case code := <-in.done:
			in.done <- code
		case <-time.After(15 * time.Second):
			t.Error("zonekeeper did not stop within 15 s of cancellation")
		}
	})
}

// running reports whether the process is still up (it must never exit on errors).
func (in *instance) running() bool {
	select {
	case code := <-in.done:
		in.done <- code
		return false
	default:
		return true
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// query asks the DNS server at server (over "udp" or "tcp"; from the local address from when it is not
// empty, as a client of that address would) and returns the rcode and the answer data of the given type,
// sorted: addresses, TXT text as it is on the wire, CNAME targets. For an A query the CNAMEs in the
// answer are included as "cname:<target>": CoreDNS answers CNAME-type queries only from an exact etcd
// key, so a CNAME is checked through the A query clients actually make.
func query(server, from, network, name string, qtype uint16) (int, []string, error) {
	c := &dns.Client{Net: network, Timeout: 2 * time.Second}
	if from != "" {
		if network == "tcp" {
			c.Dialer = &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
		} else {
			c.Dialer = &net.Dialer{LocalAddr: &net.UDPAddr{IP: net.ParseIP(from)}}
		}
	}
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), qtype)
	r, _, err := c.Exchange(m, server)
	if err != nil {
		return 0, nil, err
	}
	var out []string
	for _, rr := range r.Answer {
		if rr.Header().Rrtype != qtype && !(qtype == dns.TypeA && rr.Header().Rrtype == dns.TypeCNAME) {
			continue
		}
		switch v := rr.(type) {
		case *dns.A:
			out = append(out, v.A.String())
		case *dns.AAAA:
			out = append(out, v.AAAA.String())
		case *dns.CNAME:
			target := strings.TrimSuffix(v.Target, ".")
			if qtype != dns.TypeCNAME {
				target = "cname:" + target
			}
			out = append(out, target)
		case *dns.TXT:
			out = append(out, dnstext.Unescape(strings.Join(v.Txt, "")))
		}
	}
	sort.Strings(out)
	return r.Rcode, out, nil
}

// answers asks the env's CoreDNS; see query.
func (e *env) answers(name string, qtype uint16) (int, []string, error) {
	return query(e.coredns.Addr, "", "udp", name, qtype)
}

// putEtcd writes keys into the DNS etcd, as another tool (external-dns, a person) would have.
func (e *env) putEtcd(t testing.TB, kv map[string]string) {
	t.Helper()
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{e.dnsEtcd.Endpoint}, DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	for k, v := range kv {
		if _, err := cli.Put(context.Background(), k, v); err != nil {
			t.Fatal(err)
		}
	}
}

// expectAnswer waits until CoreDNS answers name/qtype with exactly want.
func (e *env) expectAnswer(t testing.TB, timeout time.Duration, name string, qtype uint16, want ...string) {
	t.Helper()
	sort.Strings(want)
	testbed.Eventually(t, timeout, fmt.Sprintf("%s %s = %v", name, dns.TypeToString[qtype], want), func() error {
		_, got, err := e.answers(name, qtype)
		if err != nil {
			return err
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			return fmt.Errorf("got %v", got)
		}
		return nil
	})
}

// expectNXDOMAIN waits until CoreDNS answers NXDOMAIN for name.
func (e *env) expectNXDOMAIN(t testing.TB, timeout time.Duration, name string) {
	t.Helper()
	testbed.Eventually(t, timeout, name+" NXDOMAIN", func() error {
		rcode, got, err := e.answers(name, dns.TypeA)
		if err != nil {
			return err
		}
		if rcode != dns.RcodeNameError {
			return fmt.Errorf("rcode %s, answers %v", dns.RcodeToString[rcode], got)
		}
		return nil
	})
}

// ownership is the TXT value external-dns (and zonekeeper) writes.
func ownership(owner, resource string) string {
	return fmt.Sprintf(`"heritage=external-dns,external-dns/owner=%s,external-dns/resource=%s"`, owner, resource)
}

// ownershipOnWire is what BIND and PowerDNS answer for an ownership value: its quotes are zone-file
// delimiters there, for external-dns and zonekeeper alike.
func ownershipOnWire(owner, resource string) string {
	return strings.Trim(ownership(owner, resource), `"`)
}
