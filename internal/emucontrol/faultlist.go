package emucontrol

import "time"

// FaultList holds injected failures of one kind in the order they were
// added. Each fires for a number of matching requests, or until a deadline,
// or (neither set) until cleared. F is the emulator's own description of the
// failure. The zero value is empty and ready; callers hold their lock.
type FaultList[F any] struct {
	armed []*armed[F]
}

type armed[F any] struct {
	fault F
	count int // requests it fails; 0: no limit
	fired int
	until time.Time // zero: no deadline
}

// Add installs f for count matching requests (0: no limit) and, when d is
// positive, for d from now.
func (l *FaultList[F]) Add(f F, count int, now time.Time, d time.Duration) {
	a := &armed[F]{fault: f, count: count}
	if d > 0 {
		a.until = now.Add(d)
	}
	l.armed = append(l.armed, a)
}

// Fire returns the first live failure that match accepts, counting it as
// fired; ok is false when none matches.
func (l *FaultList[F]) Fire(now time.Time, match func(*F) bool) (f F, ok bool) {
	l.expire(now)
	for i, a := range l.armed {
		if !match(&a.fault) {
			continue
		}
		a.fired++
		if a.count > 0 && a.fired >= a.count {
			l.armed = append(l.armed[:i:i], l.armed[i+1:]...)
		}
		return a.fault, true
	}
	return f, false
}

// List returns the live failures, oldest first and never nil (the control
// API sends [] for none); left tells each how many requests it still fails
// (0: no limit) and remaining how long it still lasts (0: no deadline), for
// the emulator to write into its own fields.
func (l *FaultList[F]) List(now time.Time, left func(f *F, requests int, remaining time.Duration)) []F {
	l.expire(now)
	out := make([]F, 0, len(l.armed))
	for _, a := range l.armed {
		f, n, d := a.fault, 0, time.Duration(0)
		if a.count > 0 {
			n = a.count - a.fired
		}
		if !a.until.IsZero() {
			d = a.until.Sub(now)
		}
		left(&f, n, d)
		out = append(out, f)
	}
	return out
}

// Clear removes every failure.
func (l *FaultList[F]) Clear() { l.armed = nil }

func (l *FaultList[F]) expire(now time.Time) {
	kept := l.armed[:0]
	for _, a := range l.armed {
		if !a.until.IsZero() && !now.Before(a.until) {
			continue
		}
		kept = append(kept, a)
	}
	l.armed = kept
}
