package emucontrol

import (
	"maps"
	"net/http"
	"sync"
)

// MaxCalls bounds a call log so a long-running emulator cannot grow without
// limit; the oldest entries go first.
const MaxCalls = 100000

// Counters count calls per operation, errors per "operation:code", the
// answers that told the client to slow down (429s unless the CallLog says
// otherwise) and all calls.
type Counters struct {
	Calls     map[string]int `json:"calls"`
	Errors    map[string]int `json:"errors"`
	Throttled int            `json:"throttled"`
	Total     int            `json:"total"`
}

// CallLog records every request an emulator answered, refused or throttled,
// so tests can count SDK retries. C is the emulator's own entry type, whose
// JSON form is part of its control API. The zero value is empty and ready.
type CallLog[C any] struct {
	// Throttle, when set before the first Add, tells which answers count as
	// throttled; nil counts 429s. Route 53 throttles with 400 and an error
	// code instead of a 429.
	Throttle func(status int, errCode string) bool

	mu       sync.Mutex
	calls    []C
	counters Counters
}

// Add appends one call to operation op answered with status; errCode, when
// not empty, is the API's error code and is counted under "op:errCode".
func (l *CallLog[C]) Add(c C, op string, status int, errCode string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.calls) >= MaxCalls {
		l.calls = append(l.calls[:0], l.calls[len(l.calls)-MaxCalls+1:]...)
	}
	l.calls = append(l.calls, c)
	if l.counters.Calls == nil {
		l.counters = Counters{Calls: map[string]int{}, Errors: map[string]int{}}
	}
	l.counters.Calls[op]++
	l.counters.Total++
	if errCode != "" {
		l.counters.Errors[op+":"+errCode]++
	}
	throttled := status == http.StatusTooManyRequests
	if l.Throttle != nil {
		throttled = l.Throttle(status, errCode)
	}
	if throttled {
		l.counters.Throttled++
	}
}

// Calls returns a copy of the log, oldest first (nil when empty, which the
// control API has always sent as null).
func (l *CallLog[C]) Calls() []C {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]C(nil), l.calls...)
}

// Counters returns a copy of the counters; its maps are never nil so they
// encode as {} rather than null.
func (l *CallLog[C]) Counters() Counters {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.counters
	out.Calls, out.Errors = map[string]int{}, map[string]int{}
	maps.Copy(out.Calls, l.counters.Calls)
	maps.Copy(out.Errors, l.counters.Errors)
	return out
}

// Clear empties the log and the counters.
func (l *CallLog[C]) Clear() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls, l.counters = nil, Counters{}
}
