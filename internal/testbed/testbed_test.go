package testbed

import (
	"context"
	"net/http"
	"testing"

	"github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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
	// Writes pass admission: no admission plugin waits for a group that is turned off.
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "written", Namespace: "default"}}
	if _, err := k.Client(t).CoreV1().ConfigMaps("default").Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create a ConfigMap: %v", err)
	}
	disco := k.Client(t).Discovery()
	for _, gv := range ServedAPIs() {
		if list, err := disco.ServerResourcesForGroupVersion(gv); err != nil || len(list.APIResources) == 0 {
			t.Errorf("%s not served: %v", gv, err)
		}
	}
	// The groups no test uses stay off, so that each start skips their setup.
	if _, err := disco.ServerResourcesForGroupVersion("batch/v1"); !apierrors.IsNotFound(err) {
		t.Errorf("batch/v1 discovery: %v, want NotFound (turned off)", err)
	}
}
