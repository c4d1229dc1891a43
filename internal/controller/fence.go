package controller

import "context"

// WriteFence reports whether this process may write to the provider now. Leader election sets one:
// a replica whose Lease was last renewed too long ago (it was paused, or partitioned from the API
// server) may have been replaced by another replica without noticing yet, and must not write until it
// renews again.
type WriteFence func() error

type writeFenceKey struct{}

// WithWriteFence returns ctx carrying fence, checked by the controller right before every write.
func WithWriteFence(ctx context.Context, fence WriteFence) context.Context {
	return context.WithValue(ctx, writeFenceKey{}, fence)
}

// checkWriteFence is nil when ctx carries no fence or the fence allows writing.
func checkWriteFence(ctx context.Context) error {
	if fence, ok := ctx.Value(writeFenceKey{}).(WriteFence); ok {
		return fence()
	}
	return nil
}
