package events

import (
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/record"
)

// countingSink is the API server sink with a count of the Events that are done: written, or refused
// with an answer (client-go does not retry those). A transport error is retried by client-go and not
// counted; a Patch of an Event that is gone is followed by a Create, which counts.
type countingSink struct {
	record.EventSink
	recorded atomic.Int64

	mu   sync.Mutex
	done int64
	// changed is closed and replaced at every count.
	changed chan struct{}
}

func (s *countingSink) Create(e *corev1.Event) (*corev1.Event, error) {
	out, err := s.EventSink.Create(e)
	s.count(err, false)
	return out, err
}

func (s *countingSink) Update(e *corev1.Event) (*corev1.Event, error) {
	out, err := s.EventSink.Update(e)
	s.count(err, false)
	return out, err
}

func (s *countingSink) Patch(e *corev1.Event, data []byte) (*corev1.Event, error) {
	out, err := s.EventSink.Patch(e, data)
	s.count(err, true)
	return out, err
}

func (s *countingSink) count(err error, patch bool) {
	_, answered := err.(apierrors.APIStatus)
	if !(answered || err == nil) || (patch && apierrors.IsNotFound(err)) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done++
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
}

// waitFor waits until n Events are done or timeout has passed. Events client-go's spam filter drops
// (over 25 in a burst on one object) are never written: a wait then lasts until the timeout.
func (s *countingSink) waitFor(n int64, timeout time.Duration) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		if s.done >= n {
			s.mu.Unlock()
			return
		}
		if s.changed == nil {
			s.changed = make(chan struct{})
		}
		ch := s.changed
		s.mu.Unlock()
		select {
		case <-ch:
		case <-deadline.C:
			return
		}
	}
}
