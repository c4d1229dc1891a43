package events

import (
	"context"
	"sync/atomic"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// countingLimiter is the main client's rate limiter; it counts the requests that waited on it.
type countingLimiter struct{ calls atomic.Int64 }

func (l *countingLimiter) TryAccept() bool                { l.calls.Add(1); return true }
func (l *countingLimiter) Accept()                        { l.calls.Add(1) }
func (l *countingLimiter) Stop()                          {}
func (l *countingLimiter) QPS() float32                   { return 5 }
func (l *countingLimiter) Wait(ctx context.Context) error { l.calls.Add(1); return ctx.Err() }

// Events were written through the main client and took its --kube-api-qps (5/s) from the informers'
// lists, the status writes and the Lease renewals: 1,000 Events held them back 200 s. They have a
// client of their own now.
func TestEventsDoNotTakeTheMainClientsRate(t *testing.T) {
	api := testbed.StartKubeAPIServer(t)
	main := rest.CopyConfig(api.Config)
	limiter := &countingLimiter{}
	main.RateLimiter = limiter
	n, err := New(main, servicesByName{}, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	publish(n, "default", 20)
	n.Stop()
	list, err := api.Client(t).CoreV1().Events("default").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 20 {
		t.Errorf("%d Events written, want 20", len(list.Items))
	}
	if c := limiter.calls.Load(); c != 0 {
		t.Errorf("the Events took the main client's rate limiter %d times, want 0", c)
	}
}
