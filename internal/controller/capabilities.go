package controller

import (
	"fmt"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// refusal is a planned create or update the provider cannot hold.
type refusal struct {
	action  string
	record  *endpoint.Endpoint
	problem endpoint.Problem
}

// withoutUnholdable takes out of the plan the creates and updates that the provider's capabilities
// cannot hold (a record type, a set identifier, a wildcard name), so that the provider is never sent
// them, and returns them as problems on their objects. An update left out keeps the record as it is.
// Deletes always pass: a record the provider lists is one it holds.
func (c *Controller) withoutUnholdable(changes *plan.Changes) (*plan.Changes, []refusal) {
	caps := c.settings.Capabilities
	if caps == nil || changes == nil {
		return changes, nil
	}
	var refused []refusal
	refuse := func(action string, e *endpoint.Endpoint) bool {
		why := caps.Refuses(e)
		if why == "" {
			return false
		}
		name := c.settings.ProviderName
		if name == "" {
			name = "DNS"
		}
		value := e.DNSName + " " + e.RecordType
		if e.SetIdentifier != "" {
			value += " [" + e.SetIdentifier + "]"
		}
		refused = append(refused, refusal{action: action, record: e, problem: endpoint.Problem{
			Object: resourceRef(e.Resource()), Field: "record", Value: value,
			Reason: fmt.Sprintf("the %s provider cannot hold it: %s", name, why),
		}})
		return true
	}
	out := &plan.Changes{Delete: changes.Delete}
	for _, e := range changes.Create {
		if !refuse(string(provider.ActionCreate), e) {
			out.Create = append(out.Create, e)
		}
	}
	for i, e := range changes.UpdateNew {
		if !refuse(string(provider.ActionUpdate), e) {
			out.UpdateOld = append(out.UpdateOld, changes.UpdateOld[i])
			out.UpdateNew = append(out.UpdateNew, e)
		}
	}
	if len(refused) == 0 {
		return changes, nil
	}
	return out, refused
}

// reportRefused logs each refusal once, while it lasts, and tells its object (unless another view's
// controller does).
func (c *Controller) reportRefused(refused []refusal) {
	keys, tokens := make([]string, len(refused)), make([]string, len(refused))
	for i, r := range refused {
		keys[i], tokens[i] = r.action+"|"+r.problem.Error(), plan.NameKey(r.record.DNSName)
	}
	for i, isNew := range c.reported.fresh("capability", keys, tokens) {
		if !isNew {
			continue
		}
		r := refused[i]
		c.log.Warn("Change left out: the provider cannot hold it",
			"action", r.action, "record", r.record.DNSName, "type", r.record.RecordType,
			"resource", r.record.Resource(), "reason", r.problem.Reason)
		if !c.settings.QuietProblems {
			c.settings.Notifier.InvalidInput(r.problem)
		}
	}
}

// resourceRef is the object a resource label names: "ingress/default/web", or "node/n1" for a
// cluster-scoped object. Object lookups match the label's kind without regard to case; DNSEndpoints,
// labelled "crd", are named by their kind, as their sources' problems are.
func resourceRef(resource string) endpoint.ObjectRef {
	kind, namespace, name := endpoint.SplitResource(resource)
	if kind == "crd" {
		kind = "DNSEndpoint"
	}
	return endpoint.ObjectRef{Kind: kind, Namespace: namespace, Name: name}
}

// resourceLabel is resourceRef's inverse: the resource label of an object's endpoints.
func resourceLabel(ref endpoint.ObjectRef) string {
	kind := strings.ToLower(ref.Kind)
	if kind == "dnsendpoint" {
		kind = "crd"
	}
	if ref.Namespace == "" {
		return kind + "/" + ref.Name
	}
	return kind + "/" + ref.Namespace + "/" + ref.Name
}
