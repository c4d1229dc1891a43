package deploy

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// serviceAccountIdentity is the chart's ServiceAccount, used through impersonation by the admin identity
// (a member of system:masters may impersonate anyone): what this identity can do is exactly what the
// rendered RBAC grants a pod running as that ServiceAccount.
type serviceAccountIdentity struct {
	namespace, name string
	config          *rest.Config
	kubeconfig      string // for zonekeeper's --kubeconfig
}

func (c *cluster) impersonate(t testing.TB, namespace, name string) *serviceAccountIdentity {
	t.Helper()
	user := fmt.Sprintf("system:serviceaccount:%s:%s", namespace, name)
	cfg := rest.CopyConfig(c.kube.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}

	kc := clientcmdapi.NewConfig()
	kc.Clusters["testbed"] = &clientcmdapi.Cluster{Server: cfg.Host, InsecureSkipTLSVerify: true}
	kc.AuthInfos["sa"] = &clientcmdapi.AuthInfo{Token: cfg.BearerToken, Impersonate: user}
	kc.Contexts["testbed"] = &clientcmdapi.Context{Cluster: "testbed", AuthInfo: "sa"}
	kc.CurrentContext = "testbed"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return &serviceAccountIdentity{namespace: namespace, name: name, config: cfg, kubeconfig: path}
}

func (s *serviceAccountIdentity) client(t testing.TB) kubernetes.Interface {
	t.Helper()
	c, err := kubernetes.NewForConfig(s.config)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// access is one verb on one resource, optionally in a namespace and on a named object.
type access struct {
	verb, group, resource, subresource, namespace, name string
}

func (a access) String() string {
	r := a.resource
	if a.group != "" {
		r += "." + a.group
	}
	if a.subresource != "" {
		r += "/" + a.subresource
	}
	return fmt.Sprintf("%s %s %s/%s", a.verb, r, a.namespace, a.name)
}

// allowed asks the API server's authorizer (SubjectAccessReview, as the admin) whether the ServiceAccount
// may do a.
func (c *cluster) allowed(t testing.TB, s *serviceAccountIdentity, a access) bool {
	t.Helper()
	review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:   fmt.Sprintf("system:serviceaccount:%s:%s", s.namespace, s.name),
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + s.namespace, "system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Verb: a.verb, Group: a.group, Resource: a.resource, Subresource: a.subresource, Namespace: a.namespace, Name: a.name,
		},
	}}
	out, err := c.kube.Client(t).AuthorizationV1().SubjectAccessReviews().Create(context.Background(), review, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("SubjectAccessReview %s: %v", a, err)
	}
	return out.Status.Allowed
}

// waitAllowed waits until the authorizer's answer for a is want: RBAC changes reach it through an
// informer, a moment after the write.
func (c *cluster) waitAllowed(t testing.TB, s *serviceAccountIdentity, a access, want bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for c.allowed(t, s, a) != want {
		if time.Now().After(deadline) {
			t.Fatalf("%s: allowed stayed %v", a, !want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
