//go:build sidebyside

package bench

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// benchNamespace holds the Ingresses; the apiserver creates it.
const benchNamespace = "default"

func ingressName(i int) string { return fmt.Sprintf("web-%06d", i) }

func ingressHost(i int, zone string) string { return fmt.Sprintf("h%06d.%s", i, zone) }

// ingressIP is Ingress i's first status address: distinct for every i below 2^24.
func ingressIP(i int) string { return fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255) }

// fastClient is a clientset without client-side rate limiting to speak of, for loading objects.
func fastClient(cfg *rest.Config) (kubernetes.Interface, error) {
	c := rest.CopyConfig(cfg)
	c.QPS, c.Burst = 5000, 5000
	return kubernetes.NewForConfig(c)
}

// loadIngresses creates n Ingresses, each with one host under zone and a status address, as an
// ingress controller would set it; it returns host → address.
func loadIngresses(ctx context.Context, client kubernetes.Interface, n int, zone string, progress func(string)) (map[string]string, error) {
	err := createIngresses(ctx, client, n, func(i int) []networkingv1.IngressRule {
		return []networkingv1.IngressRule{{Host: ingressHost(i, zone)}}
	}, progress)
	if err != nil {
		return nil, err
	}
	want := make(map[string]string, n)
	for i := 0; i < n; i++ {
		want[ingressHost(i, zone)] = ingressIP(i)
	}
	return want, nil
}

// createIngresses creates n Ingresses with the rules rules(i) gives Ingress i and one status address
// each (ingressIP), with 48 parallel clients, reporting progress every 15 s; the first error stops
// the others.
func createIngresses(ctx context.Context, client kubernetes.Interface, n int, rules func(i int) []networkingv1.IngressRule, progress func(string)) error {
	const workers = 48
	next, made := atomic.Int64{}, atomic.Int64{}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	fail := func(err error) {
		errOnce.Do(func() { firstErr = err; cancel() })
	}
	start := time.Now()
	tick := time.NewTicker(15 * time.Second)
	defer tick.Stop()
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				progress(fmt.Sprintf("%d of %d Ingresses after %s", made.Load(), n, time.Since(start).Round(time.Second)))
			}
		}
	}()
	ingresses := client.NetworkingV1().Ingresses(benchNamespace)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n || ctx.Err() != nil {
					return
				}
				ing := &networkingv1.Ingress{
					ObjectMeta: metav1.ObjectMeta{Name: ingressName(i), Namespace: benchNamespace},
					Spec:       networkingv1.IngressSpec{Rules: rules(i)},
				}
				created, err := ingresses.Create(ctx, ing, metav1.CreateOptions{})
				if err != nil {
					fail(fmt.Errorf("creating Ingress %s/%s: %v", benchNamespace, ing.Name, err))
					return
				}
				created.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: ingressIP(i)}}
				if _, err := ingresses.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
					fail(fmt.Errorf("setting the status of Ingress %s/%s: %v", benchNamespace, ing.Name, err))
					return
				}
				made.Add(1)
			}
		}()
	}
	wg.Wait()
	return firstErr
}

// setIngressIP replaces Ingress i's status address with one merge patch of the status subresource.
func setIngressIP(ctx context.Context, client kubernetes.Interface, i int, ip string) error {
	patch := fmt.Sprintf(`{"status":{"loadBalancer":{"ingress":[{"ip":%q}]}}}`, ip)
	_, err := client.NetworkingV1().Ingresses(benchNamespace).Patch(ctx, ingressName(i), types.MergePatchType, []byte(patch), metav1.PatchOptions{}, "status")
	if err != nil {
		return fmt.Errorf("patching the status of Ingress %s/%s: %v", benchNamespace, ingressName(i), err)
	}
	return nil
}
