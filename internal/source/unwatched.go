package source

// UnwatchedReader is implemented by a source whose endpoints can change without an event, because it
// reads something none of its informers watch (Ambassador Hosts: a Service outside --namespace, read
// with a GET at every pass). While it reports true the controller lists the sources at every resync
// instead of trusting their silence (the controller's idle resync skips listing sources that had no
// event since their last listing).
type UnwatchedReader interface {
	ReadsUnwatched() bool
}

// ReadsUnwatched reports whether s (or a source it wraps, when the wrapper forwards) reads something
// no informer watches.
func ReadsUnwatched(s Source) bool {
	u, ok := s.(UnwatchedReader)
	return ok && u.ReadsUnwatched()
}
