package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

const testOwner = "me"

// rec builds an endpoint: rec("a.example.com", "A", "1.1.1.1").owned("me").from("service/default/a").
type recBuilder struct{ *endpoint.Endpoint }

func rec(name, recordType string, targets ...string) recBuilder {
	return recBuilder{endpoint.New(name, recordType, targets...)}
}

func (r recBuilder) owned(owner string) recBuilder {
	r.Labels[endpoint.OwnerLabelKey] = owner
	return r
}

func (r recBuilder) from(resource string) recBuilder {
	r.Labels[endpoint.ResourceLabelKey] = resource
	return r
}

func (r recBuilder) ttl(t endpoint.TTL) recBuilder {
	r.RecordTTL = t
	return r
}

func (r recBuilder) set(id string) recBuilder {
	r.SetIdentifier = id
	return r
}

func (r recBuilder) ps(name, value string) recBuilder {
	r.SetProviderSpecific(name, value)
	return r
}

func (r recBuilder) label(k, v string) recBuilder {
	r.Labels[k] = v
	return r
}

func eps(rs ...recBuilder) []*endpoint.Endpoint {
	out := make([]*endpoint.Endpoint, len(rs))
	for i, r := range rs {
		out[i] = r.Endpoint
	}
	return out
}

// summary renders a result as sorted, human-readable lines so table tests can compare whole plans.
func summary(res Result) []string {
	var out []string
	for _, e := range res.Changes.Create {
		out = append(out, "create "+describe(e))
	}
	for i, e := range res.Changes.UpdateNew {
		out = append(out, "update "+describe(res.Changes.UpdateOld[i])+" -> "+describe(e))
	}
	for _, e := range res.Changes.Delete {
		out = append(out, "delete "+describe(e))
	}
	for _, c := range res.Conflicts {
		out = append(out, fmt.Sprintf("conflict %s winner=%s loser=%s: %s", c.Key, c.Winner, c.Loser, c.Reason))
	}
	for _, m := range res.OwnerMismatches {
		out = append(out, fmt.Sprintf("mismatch %s %s owner=%s foreign=%q resource=%s", m.Action, m.Key, m.OwnerID, m.ForeignOwner, m.Resource))
	}
	return out
}

func describe(e *endpoint.Endpoint) string {
	s := e.Key().String() + " " + strings.Join(e.Targets, ",")
	if e.RecordTTL != 0 {
		s += fmt.Sprintf(" ttl=%d", e.RecordTTL)
	}
	for _, p := range e.ProviderSpecific {
		s += " " + p.Name + "=" + p.Value
	}
	var labels []string
	for k, v := range e.Labels {
		labels = append(labels, k+"="+v)
	}
	slices.Sort(labels)
	if len(labels) > 0 {
		s += " {" + strings.Join(labels, " ") + "}"
	}
	return s
}
