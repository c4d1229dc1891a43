package testbed

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/zonekeeper/zonekeeper/internal/kube"
)

// KubeAPIServer is a kube-apiserver on loopback, backed by its own etcd. No controllers run: a test
// sets status (load-balancer addresses) itself, as a cloud or ingress controller would.
type KubeAPIServer struct {
	// Config authenticates as a member of system:masters.
	Config *rest.Config
	// Kubeconfig is the path of a kubeconfig file for the same identity.
	Kubeconfig string
	Etcd       *Etcd
	proc       *process
}

// StartKubeAPIServer starts etcd and kube-apiserver for the duration of the test.
func StartKubeAPIServer(t testing.TB) *KubeAPIServer {
	t.Helper()
	bin := Binary(t, "kube-apiserver")
	etcd := StartEtcd(t)
	dir := t.TempDir()

	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "sa.key"), pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}))
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "sa.pub"), pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}))
	tokenBytes := make([]byte, 16)
	_, _ = rand.Read(tokenBytes)
	token := hex.EncodeToString(tokenBytes)
	writeFile(t, filepath.Join(dir, "tokens.csv"), []byte(token+",admin,admin,system:masters\n"))

	port := FreePort(t)
	k := &KubeAPIServer{Etcd: etcd, proc: &process{name: bin, dir: dir, args: []string{
		"--etcd-servers=" + etcd.Endpoint,
		"--cert-dir=" + filepath.Join(dir, "certs"),
		fmt.Sprintf("--secure-port=%d", port),
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--service-cluster-ip-range=10.0.0.0/24",
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file=" + filepath.Join(dir, "sa.pub"),
		"--service-account-signing-key-file=" + filepath.Join(dir, "sa.key"),
		"--authorization-mode=RBAC",
		"--token-auth-file=" + filepath.Join(dir, "tokens.csv"),
		"--runtime-config=" + runtimeConfig(),
		"--disable-admission-plugins=" + strings.Join(disabledAdmissionPlugins(), ","),
		"--enable-priority-and-fairness=false",
		"--v=0",
	}}}
	k.Config = &rest.Config{
		Host:            fmt.Sprintf("https://127.0.0.1:%d", port),
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{Insecure: true},
		QPS:             200,
		Burst:           400,
	}
	if err := k.proc.start(); err != nil {
		t.Fatalf("kube-apiserver: %v", err)
	}
	t.Cleanup(k.proc.stop)
	client, err := kubernetes.NewForConfig(k.Config)
	if err != nil {
		t.Fatal(err)
	}
	err = waitFor(k.proc, 60*time.Second, func(ctx context.Context) error {
		body, err := client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		if err != nil {
			return err
		}
		if string(body) != "ok" {
			return fmt.Errorf("readyz: %s", body)
		}
		// The default namespace is created by a post-start hook; tests create objects in it.
		_, err = client.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("kube-apiserver: %v", err)
	}
	k.Kubeconfig = filepath.Join(dir, "kubeconfig")
	if err := writeKubeconfig(k.Kubeconfig, k.Config); err != nil {
		t.Fatal(err)
	}
	return k
}

// ServedAPIs are the group versions the server serves ("v1" is the core group): what the tests, the
// chart and zonekeeper's sources use, and the real external-dns reads. Every other group (batch,
// autoscaling, storage, certificates, resource, flowcontrol, ...) is turned off: each served
// resource costs the server storage setup, a watch cache filled from etcd and OpenAPI at every start,
// and a run of hack/test.sh starts about 150 servers. Measured on 2 cores, etcd and kube-apiserver
// together: 2.8 CPU-s until ready with every group, 2.1 with these; idle 1.1 against 0.7 CPU-s a
// minute; 258 against 212 MB resident. A test that needs another group adds it here.
func ServedAPIs() []string {
	return []string{
		"v1",
		"apps/v1",                      // test/deploy: the chart's Deployment
		"policy/v1",                    // test/deploy: the chart's PodDisruptionBudget
		"networking.k8s.io/v1",         // Ingress (and the Service IP allocator's ServiceCIDR, IPAddress)
		"discovery.k8s.io/v1",          // EndpointSlices of the service source
		"rbac.authorization.k8s.io/v1", // test/deploy and the RBAC tests; the server's own bootstrap roles
		"authorization.k8s.io/v1",      // access reviews (internal/source's access checker)
		"coordination.k8s.io/v1",       // leader election Leases
		"events.k8s.io/v1",             // Events
		"apiextensions.k8s.io/v1",      // CRDs: DNSEndpoint, Gateway API, Istio and the other sources' kinds
		"apiregistration.k8s.io/v1",    // the aggregator's own APIServices, without which discovery is incomplete
	}
}

// runtimeConfig is --runtime-config turning off every group version but ServedAPIs.
func runtimeConfig() string {
	parts := []string{"api/all=false"}
	for _, gv := range ServedAPIs() {
		if gv == "v1" {
			gv = "api/v1"
		}
		parts = append(parts, gv+"=true")
	}
	return strings.Join(parts, ",")
}

// disabledAdmissionPlugins are the default admission plugins the testbed turns off. ServiceAccount
// would demand a token controller no test runs. Each of the others works on a group that ServedAPIs
// turns off (scheduling, node, storage, certificates, admissionregistration), and those that wait for
// an informer on it hold every write at "not yet ready to handle request": with them on, the server
// never became ready. A plugin added to the defaults with such a dependency shows up the same way.
func disabledAdmissionPlugins() []string {
	return []string{
		"ServiceAccount",
		"Priority", "RuntimeClass",
		"DefaultStorageClass", "StorageObjectInUseProtection", "PersistentVolumeClaimResize",
		"CertificateApproval", "CertificateSigning", "CertificateSubjectRestriction", "ClusterTrustBundleAttest",
		"ValidatingAdmissionPolicy", "ValidatingAdmissionWebhook", "MutatingAdmissionWebhook", "MutatingAdmissionPolicy",
	}
}

// Client returns a clientset for the admin identity.
func (k *KubeAPIServer) Client(t testing.TB) kubernetes.Interface {
	t.Helper()
	c, err := kubernetes.NewForConfig(k.Config)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Kube returns zonekeeper's own client (internal/kube) for the admin identity: what sources and
// the public address lookups take.
func (k *KubeAPIServer) Kube(t testing.TB) *kube.Client {
	t.Helper()
	c, err := kube.NewForConfig(k.Config)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Log returns what the server printed.
func (k *KubeAPIServer) Log() string { return k.proc.log() }

// KubeconfigAs writes a kubeconfig that acts as user (impersonation by the admin identity), for tests
// of what a restricted identity can and cannot do; its group is system:authenticated.
func (k *KubeAPIServer) KubeconfigAs(t testing.TB, user string) string {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["testbed"] = &clientcmdapi.Cluster{Server: k.Config.Host, InsecureSkipTLSVerify: true}
	kc.AuthInfos[user] = &clientcmdapi.AuthInfo{Token: k.Config.BearerToken, Impersonate: user}
	kc.Contexts["testbed"] = &clientcmdapi.Context{Cluster: "testbed", AuthInfo: user}
	kc.CurrentContext = "testbed"
	path := filepath.Join(t.TempDir(), "kubeconfig-"+user)
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

func writeKubeconfig(path string, cfg *rest.Config) error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["testbed"] = &clientcmdapi.Cluster{Server: cfg.Host, InsecureSkipTLSVerify: true}
	kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{Token: cfg.BearerToken}
	kc.Contexts["testbed"] = &clientcmdapi.Context{Cluster: "testbed", AuthInfo: "admin"}
	kc.CurrentContext = "testbed"
	return clientcmd.WriteToFile(*kc, path)
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
