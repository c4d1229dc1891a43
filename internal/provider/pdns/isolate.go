package pdns

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// send PATCHes units and, when PowerDNS refuses the body (422; it then applies none of it), isolates
// the refused rrsets: each unit ends up either applied or refused on its own, with PowerDNS's message.
// When the message names an rrset of the body (PowerDNS's messages do: "RRset www.example.com. IN
// CNAME: Conflicts with pre-existing RRset"), the others are sent first and that one alone after, so
// k refused rrsets cost about 2k extra PATCHes; otherwise the body is bisected. Any other error ends
// the call.
func (p *Provider) send(ctx context.Context, z zone, units []*unit) ([]provider.RejectedChange, error) {
	err := p.patch(ctx, z, units)
	if err == nil {
		return nil, nil
	}
	ae, ok := unprocessable(err)
	if !ok {
		return nil, err
	}
	if len(units) == 1 {
		return refused(z, units[0], ae.Message), nil
	}
	var parts [][]*unit
	if i := culprit(ae.Message, units); i >= 0 && p.isolateByMessage {
		rest := append(append([]*unit{}, units[:i]...), units[i+1:]...)
		parts = [][]*unit{rest, units[i : i+1]}
	} else {
		mid := len(units) / 2
		parts = [][]*unit{units[:mid], units[mid:]}
	}
	var out []provider.RejectedChange
	for _, part := range parts {
		r, err := p.send(ctx, z, part)
		if err != nil {
			return nil, err
		}
		out = append(out, r...)
	}
	return out, nil
}

// refused reports every change behind a unit PowerDNS refused on its own.
func refused(z zone, u *unit, message string) []provider.RejectedChange {
	contents := make([]string, len(u.rrset.Records))
	for i, r := range u.rrset.Records {
		contents[i] = r.Content
	}
	what := fmt.Sprintf("%s %s %s", u.rrset.ChangeType, u.rrset.Name, u.rrset.Type)
	if len(contents) > 0 {
		what += " [" + strings.Join(contents, " ") + "]"
	}
	err := fmt.Errorf("PowerDNS refused %s in zone %s: %s", what, z.name, message)
	out := make([]provider.RejectedChange, len(u.changes))
	for i, c := range u.changes {
		out[i] = provider.RejectedChange{Action: c.action, Endpoint: c.ep, Err: err}
	}
	return out
}

// rrsetInMessage finds "NAME. IN TYPE" and "NAME./TYPE" in PowerDNS 4.x error messages.
var rrsetInMessage = regexp.MustCompile(`([^\s'"/]+\.)(?: IN |/)([A-Z0-9]+)\b`)

// culprit returns the index of the one unit the message names, or -1.
func culprit(message string, units []*unit) int {
	m := rrsetInMessage.FindStringSubmatch(message)
	if m == nil {
		return -1
	}
	found := -1
	for i, u := range units {
		if strings.EqualFold(u.rrset.Name, m[1]) && u.rrset.Type == m[2] {
			if found >= 0 {
				return -1
			}
			found = i
		}
	}
	return found
}
