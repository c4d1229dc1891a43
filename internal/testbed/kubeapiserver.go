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
		"--disable-admission-plugins=ServiceAccount",
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
