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
	"k8s.io/client-go/kubernetes"
)

// millionHost is host rule j of Ingress i: flat names under the zone, as the hosts of many
// applications are, so the server holds no empty non-terminals.
func millionHost(i, j int, zone string) string { return fmt.Sprintf("i%06d-r%03d.%s", i, j, zone) }

// loadManyHostIngresses creates objects Ingresses of hosts host rules each (millionHost) with one
// status address each (ingressIP), with parallel clients, reporting progress every 15 s.
func loadManyHostIngresses(ctx context.Context, client kubernetes.Interface, objects, hosts int, zone string, progress func(string)) error {
	const workers = 48
	next, made := atomic.Int64{}, atomic.Int64{}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	fail := func(err error) { errOnce.Do(func() { firstErr = err; cancel() }) }
	start := time.Now()
	tick := time.NewTicker(15 * time.Second)
	defer tick.Stop()
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				progress(fmt.Sprintf("%d of %d Ingresses after %s", made.Load(), objects, time.Since(start).Round(time.Second)))
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
				if i >= objects || ctx.Err() != nil {
					return
				}
				rules := make([]networkingv1.IngressRule, hosts)
				for j := range rules {
					rules[j].Host = millionHost(i, j, zone)
				}
				ing := &networkingv1.Ingress{
					ObjectMeta: metav1.ObjectMeta{Name: ingressName(i), Namespace: benchNamespace},
					Spec:       networkingv1.IngressSpec{Rules: rules},
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
