package txt

import (
	"errors"
	"fmt"

	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// markRejected matches the provider's rejections to the changes we sent: by pointer when the provider
// hands back what it got (the contract's intent), else by action and record key (a provider that
// decoded the changes from the wire). It returns the rejections that match nothing.
func (b *batch) markRejected(ae *provider.ApplyError) []provider.RejectedChange {
	var unmatched []provider.RejectedChange
	for _, rc := range ae.Rejected {
		c := b.findByPointer(rc)
		if c == nil {
			c = b.findByKey(rc)
		}
		if c == nil {
			unmatched = append(unmatched, rc)
			continue
		}
		c.rejected = rc.Err
		if c.rejected == nil {
			c.rejected = errors.New("rejected")
		}
	}
	return unmatched
}

func (b *batch) findByPointer(rc provider.RejectedChange) *sentChange {
	for _, c := range b.sent {
		if c.rejected == nil && (c.ep == rc.Endpoint || c.old != nil && c.old == rc.Endpoint) {
			return c
		}
	}
	return nil
}

func (b *batch) findByKey(rc provider.RejectedChange) *sentChange {
	if rc.Endpoint == nil {
		return nil
	}
	k := keyOf(rc.Endpoint)
	for _, c := range b.sent {
		if c.rejected == nil && c.action == rc.Action && (keyOf(c.ep) == k || c.old != nil && keyOf(c.old) == k) {
			return c
		}
	}
	return nil
}

// rejectedError reports the rejections against the caller's record endpoints, one entry per record
// change, so the controller can tie each failure to the resource label of the object behind it.
func (b *batch) rejectedError(unmatched []provider.RejectedChange) error {
	errs := make([][]error, len(b.origins))
	for _, c := range b.sent {
		if c.rejected == nil {
			continue
		}
		err := c.rejected
		if c.txt {
			err = fmt.Errorf("ownership record %s TXT: %w", c.ep.DNSName, err)
		}
		errs[c.origin] = append(errs[c.origin], err)
	}
	out := &provider.ApplyError{}
	for i, o := range b.origins {
		if len(errs[i]) == 0 {
			continue
		}
		err := errs[i][0]
		if len(errs[i]) > 1 {
			err = errors.Join(errs[i]...)
		}
		out.Rejected = append(out.Rejected, provider.RejectedChange{Action: o.action, Endpoint: o.ep, Err: err})
	}
	out.Rejected = append(out.Rejected, unmatched...)
	if len(out.Rejected) == 0 {
		return nil
	}
	return out
}
