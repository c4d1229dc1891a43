package aws

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"
	"github.com/aws/smithy-go"

	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// send submits one batch. When Route 53 rejects it as a whole (InvalidChangeBatch, or InvalidInput for
// a malformed change; it then applies nothing), the offending groups are isolated: groups whose names
// the message mentions are split off and the rest is sent again; when the message names none, the
// batch is halved. A group rejected on its own is reported, every unit of it, with Route 53's message.
// k offending groups cost about 2k+1 calls when the message names them, 2k·log2(n) otherwise.
func (p *Provider) send(ctx context.Context, z zone, b batch, origins []origin) ([]provider.RejectedChange, error) {
	changes, names := b.changes()
	for _, ch := range changes {
		p.log.Info(fmt.Sprintf("Desired change: %s %s %s", ch.Action, strings.TrimSuffix(deref(ch.ResourceRecordSet.Name), "."), ch.ResourceRecordSet.Type),
			"zoneName", z.name, "zoneID", z.id)
	}
	_, err := z.api.ChangeResourceRecordSets(withZone(ctx, z), &route53.ChangeResourceRecordSetsInput{
		HostedZoneId: ptr(z.id),
		ChangeBatch:  &r53types.ChangeBatch{Changes: changes},
	})
	if err == nil {
		p.patch(z.id, changes, names)
		p.log.Info(fmt.Sprintf("%d record(s) were successfully updated", len(changes)), "zoneName", z.name, "zoneID", z.id)
		return nil, nil
	}
	msg, whole := batchRejected(err)
	if !whole {
		return nil, fmt.Errorf("changing record sets of zone %s: %w", z, err)
	}
	if len(b) == 1 {
		return rejectGroup(z, b[0], origins, msg), nil
	}
	var parts []batch
	if named, rest := splitNamed(b, msg); len(named) > 0 && len(rest) > 0 {
		parts = append(parts, rest)
		for _, g := range named {
			parts = append(parts, batch{g})
		}
	} else {
		parts = []batch{b[:len(b)/2], b[len(b)/2:]}
	}
	var out []provider.RejectedChange
	for _, part := range parts {
		r, err := p.send(ctx, z, part, origins)
		if err != nil {
			return nil, err
		}
		out = append(out, r...)
	}
	return out, nil
}

// batchRejected returns Route 53's message when the error rejects the batch as a whole.
func batchRejected(err error) (string, bool) {
	var icb *r53types.InvalidChangeBatch
	if errors.As(err, &icb) {
		msg := icb.ErrorMessage()
		if len(icb.Messages) > 0 {
			msg = "[" + strings.Join(icb.Messages, ", ") + "]"
		}
		return "InvalidChangeBatch: " + msg, true
	}
	var ae smithy.APIError
	if errors.As(err, &ae) && ae.ErrorCode() == "InvalidInput" {
		return "InvalidInput: " + ae.ErrorMessage(), true
	}
	return "", false
}

// splitNamed separates the groups with a unit whose name the message mentions.
func splitNamed(b batch, msg string) (named []group, rest batch) {
	lower := strings.ToLower(msg)
	for _, g := range b {
		hit := false
		for _, u := range g {
			if mentions(lower, u.name) {
				hit = true
				break
			}
		}
		if hit {
			named = append(named, g)
		} else {
			rest = append(rest, g)
		}
	}
	return named, rest
}

// mentions reports whether msg names name as a whole DNS name ("www.example.com." not inside
// "a-www.example.com.").
func mentions(msg, name string) bool {
	needle := name + "."
	for i := 0; ; {
		j := strings.Index(msg[i:], needle)
		if j < 0 {
			return false
		}
		at := i + j
		before := byte(' ')
		if at > 0 {
			before = msg[at-1]
		}
		if !isNameChar(before) && before != '.' {
			return true
		}
		i = at + 1
	}
}

func isNameChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '*' || c == '\\'
}

// rejectGroup reports every unit of a group Route 53 refused on its own.
func rejectGroup(z zone, g group, origins []origin, msg string) []provider.RejectedChange {
	var out []provider.RejectedChange
	for _, u := range g {
		o := origins[u.origin]
		what := fmt.Sprintf("%s %s %s", o.action, u.name, u.rtype)
		if o.ep.SetIdentifier != "" {
			what += " (set-identifier " + o.ep.SetIdentifier + ")"
		}
		out = append(out, provider.RejectedChange{Action: o.action, Endpoint: o.ep,
			Err: fmt.Errorf("route 53 rejected %s in zone %s: %s", what, z, msg)})
	}
	return out
}
