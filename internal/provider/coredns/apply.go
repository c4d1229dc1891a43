package coredns

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// ApplyChanges implements provider.Provider.
//
// Changes are validated one by one (zone, type, targets, wildcard, CNAME rules) and grouped by name.
// The current values of every touched name are read in a few read-only transactions, the changes are
// applied to that picture in the order deletes, updates, creates, and each name's resulting puts and
// deletes go into one etcd transaction, so a name is never half-changed. Several names share a
// transaction up to the server's operation limit; if such a transaction is refused, its names are
// retried one by one, so one bad name does not block the others. Every refused change is reported in
// an *provider.ApplyError; a failure before anything was written is returned as a plain error.
func (p *Provider) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	var rejected []provider.RejectedChange
	reject := func(c change, err error) {
		rejected = append(rejected, provider.RejectedChange{Action: c.action, Endpoint: c.ep, Err: err})
	}
	accepted := p.validate(changes, &rejected)

	states, order := p.states(accepted)
	if len(order) > 0 {
		if err := p.readStates(ctx, order, states); err != nil {
			return err
		}
	}
	var work []*nameWork
	for _, name := range order {
		s := states[name]
		for _, c := range accepted[name] {
			if err := s.apply(c); err != nil {
				reject(c, err)
			}
		}
		w := &nameWork{state: s}
		w.puts, w.deletes = s.ops(p.layout)
		switch {
		case w.size() == 0:
		case w.size() > p.maxOps:
			for _, c := range s.changes {
				reject(c, fmt.Errorf("the changes to %s need %d etcd operations, more than one transaction allows (%d)", name, w.size(), p.maxOps))
			}
		default:
			work = append(work, w)
		}
	}

	failed, err := p.commit(ctx, work)
	if err != nil {
		return err
	}
	for _, f := range failed {
		for _, c := range f.work.state.changes {
			reject(c, f.err)
		}
	}
	if len(rejected) > 0 {
		return &provider.ApplyError{Rejected: rejected}
	}
	return nil
}

// validate checks every change on its own and returns the accepted ones by name, in the order they
// must be applied: deletes, then updates, then creates.
func (p *Provider) validate(changes *plan.Changes, rejected *[]provider.RejectedChange) map[string][]change {
	byName := map[string][]change{}
	add := func(c change, err error) {
		if err != nil {
			*rejected = append(*rejected, provider.RejectedChange{Action: c.action, Endpoint: c.ep, Err: err})
			return
		}
		byName[c.name] = append(byName[c.name], c)
	}
	if changes == nil {
		return byName
	}
	for _, e := range changes.Delete {
		c, err := p.checkDelete(e)
		c.ep, c.action = e, provider.ActionDelete
		add(c, err)
	}
	for i, e := range changes.UpdateNew {
		old := e
		if i < len(changes.UpdateOld) {
			old = changes.UpdateOld[i]
		}
		c, err := p.checkUpdate(old, e)
		c.ep, c.action = e, provider.ActionUpdate
		add(c, err)
	}
	for _, e := range changes.Create {
		c, err := p.checkWrite(provider.ActionCreate, e)
		c.ep, c.action = e, provider.ActionCreate
		add(c, err)
	}
	return byName
}

// states creates an empty state per name, in a stable order.
func (p *Provider) states(accepted map[string][]change) (map[string]*nameState, []string) {
	states := make(map[string]*nameState, len(accepted))
	order := make([]string, 0, len(accepted))
	for name := range accepted {
		states[name] = newNameState(name, p.zones.isApex(name))
		order = append(order, name)
	}
	sortStrings(order)
	return states, order
}

// readStates loads the current values of the names: for each, the exact key of the name and every key
// below "<path>/" (the trailing slash keeps www1 out of www), in read-only transactions of at most
// MaxTxnOps reads.
func (p *Provider) readStates(ctx context.Context, order []string, states map[string]*nameState) error {
	perTxn := max(p.maxOps/2, 1)
	for start := 0; start < len(order); start += perTxn {
		names := order[start:min(start+perTxn, len(order))]
		ops := make([]clientv3.Op, 0, 2*len(names))
		for _, name := range names {
			path := p.layout.namePath(name)
			ops = append(ops, clientv3.OpGet(path), clientv3.OpGet(path+"/", clientv3.WithPrefix()))
		}
		resp, err := p.txn(ctx, ops)
		if err != nil {
			return fmt.Errorf("etcd: read current records: %w", err)
		}
		for i, r := range resp.Responses {
			s := states[names[i/2]]
			for _, kv := range r.GetResponseRange().GetKvs() {
				s.load(p.layout, string(kv.Key), kv.Value)
			}
		}
	}
	return nil
}

// txn runs one transaction of unconditional operations, bounded by the operation timeout.
func (p *Provider) txn(ctx context.Context, ops []clientv3.Op) (*clientv3.TxnResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	return p.client.Txn(ctx).Then(ops...).Commit()
}
