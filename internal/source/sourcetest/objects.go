package sourcetest

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// AnnotationPrefix is the prefix Annotations puts before keys without one.
const AnnotationPrefix = "external-dns.alpha.kubernetes.io/"

// Annotations makes an annotation map from key, value pairs; a key without "/" gets AnnotationPrefix.
func Annotations(kv ...string) map[string]string {
	a := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		k := kv[i]
		if !strings.Contains(k, "/") {
			k = AnnotationPrefix + k
		}
		a[k] = kv[i+1]
	}
	return a
}

// Object makes a custom resource with its spec (and status, when not nil).
func Object(apiVersion, kind, namespace, name string, annotations map[string]string, spec, status map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetNamespace(namespace)
	u.SetName(name)
	u.SetAnnotations(annotations)
	if status != nil {
		u.Object["status"] = status
	}
	return u
}

// LoadBalancerEntries are load balancer status entries, {ip: ...} for each of ips, then {hostname: ...}
// for each of hostnames, as a status.loadBalancer.ingress list holds them.
func LoadBalancerEntries(ips, hostnames []string) []any {
	var out []any
	for _, ip := range ips {
		out = append(out, map[string]any{"ip": ip})
	}
	for _, h := range hostnames {
		out = append(out, map[string]any{"hostname": h})
	}
	return out
}

// Resource is the resource of a custom resource's kind: its lower-case plural ("httpproxies",
// "gateways").
func Resource(u *unstructured.Unstructured) schema.GroupVersionResource {
	gv, _ := schema.ParseGroupVersion(u.GetAPIVersion())
	r := strings.ToLower(u.GetKind())
	if strings.HasSuffix(r, "y") && !strings.HasSuffix(r, "ay") && !strings.HasSuffix(r, "ey") && !strings.HasSuffix(r, "oy") {
		r = strings.TrimSuffix(r, "y") + "ies"
	} else if strings.HasSuffix(r, "ss") {
		r += "es" // ingresses, tcpingresses
	} else {
		r += "s"
	}
	return gv.WithResource(r)
}

// Create creates the objects through the dynamic client, and their namespaces first; an object with a
// status gets it through the status subresource (when the CRD has one).
func Create(t testing.TB, kube kubernetes.Interface, dyn dynamic.Interface, objs ...*unstructured.Unstructured) {
	t.Helper()
	ctx := context.Background()
	nss := map[string]bool{}
	for _, u := range objs {
		ns := u.GetNamespace()
		if !nss[ns] {
			nss[ns] = true
			_, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
			if err != nil && !apierrors.IsAlreadyExists(err) {
				t.Fatal(err)
			}
		}
		client := dyn.Resource(Resource(u)).Namespace(ns)
		created, err := client.Create(ctx, u, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("%s %s/%s: %v", u.GetKind(), ns, u.GetName(), err)
		}
		if status, ok := u.Object["status"]; ok {
			created.Object["status"] = status
			if _, err := client.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
				t.Fatalf("%s %s/%s status: %v", u.GetKind(), ns, u.GetName(), err)
			}
		}
	}
}
