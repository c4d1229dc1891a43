package source

import (
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// This file is --target-template and --fqdn-target-template, with external-dns v0.23.0's semantics
// (source/template/engine.go there). Which sources apply them, and in what order, is that version's:
//
//   - service, node, pod: --fqdn-target-template only (templatePairs), before --fqdn-template;
//   - gloo-proxy, traefik-proxy, f5-virtualserver, f5-transportserver: both (applyTargetTemplates);
//   - every other source: neither (external-dns's unstructured source, which also applies both, is
//     not part of zonekeeper).
//
// Each template pass runs, like external-dns's CombineWithEndpoints, only when one of the three
// templates is set, and then only when the object has produced no record so far or
// --combine-fqdn-annotation is set.

// anyTemplate reports whether one of the three templates is set.
func (c *compiled) anyTemplate() bool {
	return c.fqdnTemplate != nil || c.targetTemplate != nil || c.fqdnTargetTemplate != nil
}

// nameTemplate reports whether a template that makes names is set (--fqdn-template or
// --fqdn-target-template); the node source then stops publishing node names unless combining.
func (c *compiled) nameTemplate() bool {
	return c.fqdnTemplate != nil || c.fqdnTargetTemplate != nil
}

// templatePassRuns reports whether a template pass runs after an object produced records records.
func (c *compiled) templatePassRuns(records int) bool {
	return c.anyTemplate() && (c.CombineFQDNAndAnnotation || records == 0)
}

// templatePairs executes --fqdn-target-template over obj: each "host:target" it produces (split at the
// first colon, so an IPv6 target stays whole) is one record, A, AAAA or CNAME by its target. A value
// without a colon, a bad host or a bad target is a Problem naming the flag; a pair with an empty side
// is skipped without one, as external-dns does, because it is a status field not filled in yet.
func (c *compiled) templatePairs(o *objectInput, m recordMeta, obj any) []*endpoint.Endpoint {
	if c.fqdnTargetTemplate == nil {
		return nil
	}
	const flag = "--fqdn-target-template"
	pairs, _ := runTemplate(o, flag, c.FQDNTargetTemplate, c.fqdnTargetTemplate, obj)
	var eps []*endpoint.Endpoint
	for _, pair := range pairs {
		host, target, found := strings.Cut(pair, ":")
		if !found {
			o.problem(flag, pair, `not a "host:target" pair (no colon)`)
			continue
		}
		host, target = strings.TrimSpace(host), strings.TrimSpace(target)
		if host == "" || target == "" {
			continue
		}
		name, err := endpoint.NormalizeDNSName(host)
		if err != nil {
			o.problem(flag, pair, err.Error())
			continue
		}
		var t targets
		t.add(o, flag, target)
		eps = append(eps, m.endpointsFor(name, t)...)
	}
	return mergeEndpoints(eps)
}

// templateTargets executes --target-template over obj and returns its valid targets; a bad one is a
// Problem naming the flag.
func (c *compiled) templateTargets(o *objectInput, obj any) targets {
	var t targets
	if c.targetTemplate == nil {
		return t
	}
	values, _ := runTemplate(o, "--target-template", c.TargetTemplate, c.targetTemplate, obj)
	for _, v := range values {
		t.add(o, "--target-template", v)
	}
	return t
}

// applyTargetTemplates is external-dns v0.23's ApplyTemplates for the sources whose template names take
// their targets from --target-template (gloo-proxy, traefik-proxy, f5-*): after the object's own
// records eps, the --fqdn-target-template pairs, then the --fqdn-template names pointing at the
// --target-template targets. objectTargets, when not nil, are what the --fqdn-template names point at
// while no --target-template is set (zonekeeper's traefik-proxy source, where external-dns publishes
// no template name then). unnamed counts the records external-dns makes for the object that zonekeeper
// does not (an F5 server with an address and no host gets one with an empty name there): they too keep
// the template passes from running.
func (c *compiled) applyTargetTemplates(o *objectInput, m recordMeta, eps []*endpoint.Endpoint, unnamed int, obj any, objectTargets *targets) []*endpoint.Endpoint {
	if c.templatePassRuns(len(eps) + unnamed) {
		eps = append(eps, c.templatePairs(o, m, obj)...)
	}
	if c.fqdnTemplate == nil || !c.templatePassRuns(len(eps)+unnamed) {
		return eps
	}
	var t targets
	if c.targetTemplate != nil || objectTargets == nil {
		t = c.templateTargets(o, obj)
	} else {
		t = *objectTargets
	}
	for _, name := range c.templateHostnames(o, obj) {
		eps = append(eps, m.endpointsFor(name, t)...)
	}
	return eps
}
