package e2e

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func ingress(name, namespace string, annotations map[string]string, hosts ...string) *networkingv1.Ingress {
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Annotations: annotations}}
	for _, h := range hosts {
		ing.Spec.Rules = append(ing.Spec.Rules, networkingv1.IngressRule{Host: h})
	}
	if len(hosts) == 0 {
		// The API server wants rules or a default backend.
		ing.Spec.DefaultBackend = &networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
			Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}}}
	}
	return ing
}

// createIngress creates the ingress and sets its status address, as an ingress controller would.
func (e *env) createIngress(t testing.TB, ing *networkingv1.Ingress, statusIP string) *networkingv1.Ingress {
	t.Helper()
	ctx := context.Background()
	created, err := e.client.NetworkingV1().Ingresses(ing.Namespace).Create(ctx, ing, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create ingress %s: %v", ing.Name, err)
	}
	if statusIP == "" {
		return created
	}
	return e.setIngressIP(t, created, statusIP)
}

func (e *env) setIngressIP(t testing.TB, ing *networkingv1.Ingress, ip string) *networkingv1.Ingress {
	t.Helper()
	ing.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: ip}}
	updated, err := e.client.NetworkingV1().Ingresses(ing.Namespace).UpdateStatus(context.Background(), ing, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("set status of ingress %s: %v", ing.Name, err)
	}
	return updated
}

func loadBalancer(name, namespace string, annotations map[string]string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Annotations: annotations},
		Spec: corev1.ServiceSpec{
			Type:  corev1.ServiceTypeLoadBalancer,
			Ports: []corev1.ServicePort{{Port: 80}},
		},
	}
}

// createService creates the service and, for a load balancer, sets its status address as a cloud
// controller would.
func (e *env) createService(t testing.TB, svc *corev1.Service, statusIP string) *corev1.Service {
	t.Helper()
	ctx := context.Background()
	created, err := e.client.CoreV1().Services(svc.Namespace).Create(ctx, svc, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create service %s: %v", svc.Name, err)
	}
	if statusIP == "" {
		return created
	}
	created.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: statusIP}}
	updated, err := e.client.CoreV1().Services(svc.Namespace).UpdateStatus(ctx, created, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("set status of service %s: %v", svc.Name, err)
	}
	return updated
}

func (e *env) createNamespace(t testing.TB, name string) {
	t.Helper()
	_, err := e.client.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create namespace %s: %v", name, err)
	}
}
