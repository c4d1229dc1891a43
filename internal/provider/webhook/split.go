package webhook

import (
	"context"
	"fmt"
	"math/bits"
)

// splitBudget is what a server refusing everything — a bare 500 while the DNS service behind it is
// down, as external-dns's own server answers — may cost one call: refusalsInARow(n) requests while
// splitting, then as many single-group probes. Splitting alone would cost 2n requests.
func splitBudget(groups int) int { return 2 * refusalsInARow(groups) }

// refusalsInARow is how many refusals without an applied request in between make the sender suspect
// an outage: enough to walk down the split of n groups twice (about 2·log2(n)).
func refusalsInARow(groups int) int { return 2*bits.Len(uint(groups)) + 2 }

// sender posts one call's groups. A refused body is split in halves, depth first, until each refused
// group stands alone. Refusals cannot tell an outage from refused records, but applied requests can:
// as long as requests keep succeeding, the server is up and splitting goes on, however many records it
// refuses. After refusalsInARow refusals with no success — a block of adjacent refused records, or an
// outage — the sender probes single groups taken across everything still pending: the first one
// applied proves the server up and splitting resumes; when the probes are refused too, the server
// refuses everything, and what is left is reported as not sent, for the controller to retry with
// backoff. A refused probe is a refused group isolated, so probing wastes nothing.
type sender struct {
	p        *Provider
	maxInRow int           // refusals in a row that trigger probing, and probes before giving up
	inRow    int           // refusals since the last applied request
	refusals int           // refusals in all, for the report
	last     error         // the last refusal
	pending  [][][]*change // chunks still to send; the last one is next
}

func newSender(p *Provider, groups int) *sender {
	return &sender{p: p, maxInRow: refusalsInARow(groups)}
}

// send applies the groups, marking each refused change. It fails only on an outage (outage) or a
// server that names a change that was not sent.
func (s *sender) send(ctx context.Context, gs [][]*change) error {
	s.pending = append(s.pending[:0], gs)
	for len(s.pending) > 0 {
		if s.inRow >= s.maxInRow {
			up, err := s.probe(ctx)
			if err != nil {
				return err
			}
			if !up {
				s.giveUp()
				return nil
			}
			continue
		}
		chunk := s.pending[len(s.pending)-1]
		s.pending = s.pending[:len(s.pending)-1]
		refused, err := s.post(ctx, chunk)
		if err != nil {
			return err
		}
		switch {
		case refused == nil:
		case len(chunk) == 1:
			reject(chunk[0], refused)
		default:
			mid := len(chunk) / 2
			s.pending = append(s.pending, chunk[mid:], chunk[:mid]) // the first half is next
		}
	}
	return nil
}

// post sends one chunk. It returns the refusal when the server refused the body whole, and an error
// when the call must fail.
func (s *sender) post(ctx context.Context, chunk [][]*change) (refused, fatal error) {
	err := s.p.post(ctx, chunk)
	if err == nil {
		s.inRow = 0
		return nil, nil
	}
	if named, ok := err.(*namedRejections); ok {
		s.inRow = 0 // the server answered change by change: it is up
		return nil, named.mark(chunk)
	}
	if outage(err) {
		return nil, err
	}
	s.inRow++
	s.refusals++
	s.last = err
	return err, nil
}

// probe posts single groups spread over the pending chunks until one is applied (true) or maxInRow of
// them were refused (false). Each probed group leaves its chunk: applied, or reported as refused.
func (s *sender) probe(ctx context.Context) (bool, error) {
	for i := 1; i <= s.maxInRow; i++ {
		g, ok := s.take(spread(i))
		if !ok {
			return true, nil // nothing left to send
		}
		refused, err := s.post(ctx, [][]*change{g})
		if err != nil {
			return false, err
		}
		if refused == nil {
			return true, nil
		}
		reject(g, refused)
	}
	return false, nil
}

// take removes the group at fraction f (0 ≤ f < 1) of the pending groups.
func (s *sender) take(f float64) ([]*change, bool) {
	total := 0
	for _, c := range s.pending {
		total += len(c)
	}
	if total == 0 {
		return nil, false
	}
	at := int(f * float64(total))
	for i, c := range s.pending {
		if at < len(c) {
			g := c[at]
			s.pending[i] = append(c[:at:at], c[at+1:]...) // a copy: the chunks share their backing array
			return g, true
		}
		at -= len(c)
	}
	return nil, false
}

// spread is the i-th (from 1) term of the base-2 van der Corput sequence, 1/2, 1/4, 3/4, 1/8, …:
// successive probes land far from each other, so a block of adjacent refused records is not probed
// again and again.
func spread(i int) float64 {
	f, unit := 0.0, 0.5
	for ; i > 0; i >>= 1 {
		if i&1 == 1 {
			f += unit
		}
		unit /= 2
	}
	return f
}

// giveUp reports every pending change as not sent.
func (s *sender) giveUp() {
	for _, chunk := range s.pending {
		for _, g := range chunk {
			for _, c := range g {
				c.rejected = fmt.Errorf("not sent: the webhook provider refused %d requests of this call, the last %d of them in a row, single records included (last: %v)", s.refusals, 2*s.maxInRow, s.last)
			}
		}
	}
	s.pending = nil
}

// reject reports a group the server refused on its own, with the server's answer.
func reject(g []*change, err error) {
	for _, c := range g {
		c.rejected = fmt.Errorf("the webhook provider refused %s: %v", describeGroup(g), err)
	}
}
