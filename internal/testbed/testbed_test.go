package testbed

import (
	"context"
	"net/http"
	"testing"

	"github.com/miekg/dns"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestEtcdRestarts(t *testing.T) {
	e := StartEtcd(t)
	e.Stop()
	if _, err := http.Get(e.Endpoint + "/health"); err == nil {
		t.Fatal("etcd still answers after Stop")
	}
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
}

func TestCoreDNSAnswersForEtcdZone(t *testing.T) {
	e := StartEtcd(t)
	c := StartCoreDNSForEtcd(t, e.Endpoint, "/skydns", "example.test.")
	m := new(dns.Msg)
	m.SetQuestion("missing.example.test.", dns.TypeA)
	r, err := dns.Exchange(m, c.Addr)
	if err != nil {
		t.Fatal(err)
	}
	if r.Rcode != dns.RcodeNameError {
		t.Fatalf("rcode %s, want NXDOMAIN", dns.RcodeToString[r.Rcode])
	}
}

func TestKubeAPIServerServes(t *testing.T) {
	k := StartKubeAPIServer(t)
	ns, err := k.Client(t).CoreV1().Namespaces().Get(context.Background(), "default", metav1.GetOptions{})
	if err != nil || ns.Name != "default" {
		t.Fatalf("default namespace: %v", err)
	}
}
