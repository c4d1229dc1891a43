package events

import (
	"k8s.io/client-go/rest"

	"github.com/zonekeeper/zonekeeper/internal/kube"
)

// The Events client's own rate. Events were written through the main client and took its
// --kube-api-qps from the informers' lists, the status writes and the Lease renewals. With the
// budget (budget.go) a window holds at most PerObjectEvents + SummaryEvents Events, 200 a minute:
// 5/s writes them within the window, and the burst lets a whole window out at once, so --once, which
// waits at most StopTimeout for the queue, loses none of them.
const (
	ClientQPS   = 5
	ClientBurst = PerObjectEvents + SummaryEvents
)

// newClient is a client for Events only: a copy of the main client's configuration (address,
// credentials, user agent) with a rate limiter of its own.
func newClient(main *rest.Config) (*kube.Client, error) {
	rc := rest.CopyConfig(main)
	rc.RateLimiter = nil
	rc.QPS, rc.Burst = ClientQPS, ClientBurst
	return kube.NewForConfig(rc)
}
