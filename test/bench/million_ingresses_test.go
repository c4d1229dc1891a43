//go:build sidebyside

package bench

import (
	"context"
	"fmt"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/client-go/kubernetes"
)

// millionHost is host rule j of Ingress i: flat names under the zone, as the hosts of many
// applications are, so the server holds no empty non-terminals.
func millionHost(i, j int, zone string) string { return fmt.Sprintf("i%06d-r%03d.%s", i, j, zone) }

// loadManyHostIngresses creates objects Ingresses of hosts host rules each (millionHost) with one
// status address each (ingressIP).
func loadManyHostIngresses(ctx context.Context, client kubernetes.Interface, objects, hosts int, zone string, progress func(string)) error {
	return createIngresses(ctx, client, objects, func(i int) []networkingv1.IngressRule {
		rules := make([]networkingv1.IngressRule, hosts)
		for j := range rules {
			rules[j].Host = millionHost(i, j, zone)
		}
		return rules
	}, progress)
}
