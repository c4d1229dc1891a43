package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// change is one record set change of a call: a create, a delete, or an update pair.
type change struct {
	action   provider.Action
	ep       *endpoint.Endpoint // the new state of an update
	old      *endpoint.Endpoint // updates only
	rejected error
}

// ApplyChanges is POST /records. When the server refuses the body, the changes are split in halves
// (a record and its ownership TXT always on the same side) until each refused group stands alone;
// every group ends up applied or reported with the server's answer (sender). A zonekeeper server
// names the refused changes itself, and then nothing is split. An unreachable server (or 502, 503,
// 504) fails the call as a whole, for the controller to retry.
//
// A webhook server that applied part of a refused body before failing is re-sent that part during
// the split; what it then refuses as already done is reported, and the next run's listing settles it.
func (p *Provider) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	if !changes.HasChanges() {
		return nil
	}
	if len(changes.UpdateOld) != len(changes.UpdateNew) {
		return fmt.Errorf("webhook provider: %d old and %d new update records", len(changes.UpdateOld), len(changes.UpdateNew))
	}
	all := flatten(changes)
	gs := groups(all)
	s := newSender(p, len(gs))
	if err := s.send(ctx, gs); err != nil {
		return fmt.Errorf("webhook provider %s: %w", p.shown, err)
	}
	var rejected []provider.RejectedChange
	for _, c := range all {
		if c.rejected != nil {
			rejected = append(rejected, provider.RejectedChange{Action: c.action, Endpoint: c.ep, Err: c.rejected})
		}
	}
	if len(rejected) > 0 {
		return &provider.ApplyError{Rejected: rejected}
	}
	return nil
}

func flatten(c *plan.Changes) []*change {
	var out []*change
	for _, e := range c.Create {
		out = append(out, &change{action: provider.ActionCreate, ep: e})
	}
	for i, e := range c.UpdateNew {
		out = append(out, &change{action: provider.ActionUpdate, ep: e, old: c.UpdateOld[i]})
	}
	for _, e := range c.Delete {
		out = append(out, &change{action: provider.ActionDelete, ep: e})
	}
	return out
}

// groups keeps each record with its ownership TXT (provider.OwnershipGroups).
func groups(all []*change) [][]*change {
	names := make([]string, len(all))
	eps := make([]*endpoint.Endpoint, len(all))
	for i, c := range all {
		names[i], eps[i] = strings.ToLower(strings.TrimSuffix(c.ep.DNSName, ".")), c.ep
	}
	var out [][]*change
	for i, g := range provider.OwnershipGroups(names, eps) {
		if g == len(out) {
			out = append(out, nil)
		}
		out[g] = append(out[g], all[i])
	}
	return out
}

// post sends one POST /records.
func (p *Provider) post(ctx context.Context, gs [][]*change) error {
	const call = "applychanges"
	p.requested(call)
	body := plan.Changes{Create: []*endpoint.Endpoint{}, UpdateOld: []*endpoint.Endpoint{}, UpdateNew: []*endpoint.Endpoint{}, Delete: []*endpoint.Endpoint{}}
	for _, g := range gs {
		for _, c := range g {
			switch c.action {
			case provider.ActionCreate:
				body.Create = append(body.Create, c.ep)
			case provider.ActionUpdate:
				body.UpdateOld = append(body.UpdateOld, c.old)
				body.UpdateNew = append(body.UpdateNew, c.ep)
			case provider.ActionDelete:
				body.Delete = append(body.Delete, c.ep)
			}
		}
	}
	b, err := json.Marshal(&body)
	if err != nil {
		return err
	}
	req, err := p.request(ctx, http.MethodPost, p.base.JoinPath(pathRecords).String(), bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", MediaType)
	resp, err := p.do(req)
	if err != nil {
		p.failed(call)
		return err
	}
	defer drain(resp)
	if resp.StatusCode == http.StatusNoContent || resp.StatusCode == http.StatusOK {
		return nil
	}
	p.failed(call)
	answer, err := readBody(resp)
	if err != nil {
		return err
	}
	if resp.Header.Get("Content-Type") == rejectionsType {
		var r rejectionsJSON
		if json.Unmarshal(answer, &r) == nil && len(r.Rejected) > 0 {
			return &namedRejections{list: r.Rejected}
		}
	}
	return statusError(resp, answer)
}

// namedRejections are the changes a zonekeeper server refused, the others being applied.
type namedRejections struct{ list []rejectionJSON }

func (n *namedRejections) Error() string { return fmt.Sprintf("%d change(s) refused", len(n.list)) }

// mark finds each named change among those sent. A name that matches nothing sent means the server is
// confused; the call then fails as a whole.
func (n *namedRejections) mark(gs [][]*change) error {
	for _, r := range n.list {
		if r.Endpoint == nil {
			return fmt.Errorf("the server refused a change without naming its record: %s", r.Error)
		}
		found := false
		for _, g := range gs {
			for _, c := range g {
				if c.action == r.Action && c.rejected == nil && sameRecordSet(c.ep, r.Endpoint) {
					c.rejected = fmt.Errorf("the webhook provider refused it: %s", r.Error)
					found = true
					break
				}
			}
			if found {
				break
			}
		}
		if !found {
			return fmt.Errorf("the server refused %s %s %s, which was not sent", r.Action, r.Endpoint.DNSName, r.Endpoint.RecordType)
		}
	}
	return nil
}

func sameRecordSet(a, b *endpoint.Endpoint) bool {
	return strings.EqualFold(strings.TrimSuffix(a.DNSName, "."), strings.TrimSuffix(b.DNSName, ".")) &&
		a.RecordType == b.RecordType && a.SetIdentifier == b.SetIdentifier
}

func describeGroup(g []*change) string {
	parts := make([]string, len(g))
	for i, c := range g {
		parts[i] = fmt.Sprintf("%s %s %s", c.action, c.ep.DNSName, c.ep.RecordType)
	}
	return strings.Join(parts, ", ")
}
