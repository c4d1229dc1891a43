package deploy

import (
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
)

// writeVerbs are the verbs that change state (or widen access).
var writeVerbs = []string{"create", "update", "patch", "delete", "deletecollection", "escalate", "bind", "impersonate", "*"}

// writeAllowed says where the chart may grant a write verb: Events, the leader-election Lease, and the
// status of DNSEndpoints when the crd source is on (external-dns reports its progress there).
func writeAllowed(r rbacv1.PolicyRule, resource string, crd bool) bool {
	for _, g := range r.APIGroups {
		switch {
		case resource == "events" && (g == "" || g == "events.k8s.io"):
		case resource == "leases" && g == "coordination.k8s.io":
		case crd && resource == "dnsendpoints/status" && g == "externaldns.k8s.io":
		default:
			return false
		}
	}
	return true
}

// TestChartRBACGrantsNoOtherWrites parses every Role and ClusterRole the chart renders, for each shape of
// install, and requires: no wildcard, no write verb except on events and leases, nothing on secrets or
// configmaps, and read rules for exactly the enabled sources.
func TestChartRBACGrantsNoOtherWrites(t *testing.T) {
	cases := map[string]struct {
		set       []string
		crd       bool
		resources []string // every resource granted, over all roles
	}{
		"default": {nil, false, []string{"services", "pods", "endpointslices", "nodes", "ingresses", "events"}},
		"ha":      {[]string{"replicaCount=3"}, false, []string{"services", "pods", "endpointslices", "nodes", "ingresses", "events", "leases"}},
		"namespaced ha": {[]string{"namespaced=true", "leaderElection.enabled=true"}, false,
			[]string{"services", "pods", "endpointslices", "nodes", "ingresses", "events", "leases"}},
		"ingress only":   {[]string{"sources={ingress}"}, false, []string{"ingresses", "events"}},
		"service only":   {[]string{"sources={service}"}, false, []string{"services", "pods", "endpointslices", "nodes", "events"}},
		"with crd":       {[]string{"sources={service,ingress,crd}"}, true, []string{"services", "pods", "endpointslices", "nodes", "ingresses", "dnsendpoints", "dnsendpoints/status", "events"}},
		"no rbac at all": {[]string{"rbac.create=false", "replicaCount=2"}, false, nil},
		// The public-address lookups add get on the one named Node or Service; nothing without them.
		"public address from node": {[]string{"sources={ingress}", "publicAddress.fromNode=edge-1"}, false, []string{"ingresses", "events", "nodes"}},
		"public address from service": {[]string{"sources={ingress}", "publicAddress.fromService=edge/router"}, false,
			[]string{"ingresses", "events", "services"}},
		"public address static": {[]string{"sources={ingress}", "publicAddress.static={203.0.113.7}", "publicAddress.echoURL=https://ifconfig.me/ip",
			"publicAddress.stunServer=stun.example.net:3478"}, false, []string{"ingresses", "events"}},
		"builtin with replicas": {[]string{"provider=builtin", "domainFilters={example.com}", "replicaCount=3"}, false,
			[]string{"services", "pods", "endpointslices", "nodes", "ingresses", "events"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			objs := mustHelmTemplate(t, chartRender{release: "zk", namespace: "dns", set: tc.set})
			var granted []string
			for role, rules := range roles(t, objs) {
				for _, r := range rules {
					for _, field := range [][]string{r.APIGroups, r.Resources, r.Verbs, r.ResourceNames} {
						if slices.Contains(field, "*") {
							t.Errorf("%s: wildcard in %+v", role, r)
						}
					}
					for _, res := range r.Resources {
						if !slices.Contains(granted, res) {
							granted = append(granted, res)
						}
						if res == "secrets" || res == "configmaps" {
							t.Errorf("%s grants %v on %s", role, r.Verbs, res)
						}
						for _, v := range r.Verbs {
							if slices.Contains(writeVerbs, v) && !writeAllowed(r, res, tc.crd) {
								t.Errorf("%s grants %s on %s %v: only events and leases may be written", role, v, res, r.APIGroups)
							}
						}
						readOnly := !slices.ContainsFunc(r.Verbs, func(v string) bool { return slices.Contains(writeVerbs, v) })
						named := len(r.ResourceNames) > 0 && slices.Equal(r.Verbs, []string{"get"}) // a public-address lookup
						if readOnly && !named && !slices.Equal(r.Verbs, []string{"get", "list", "watch"}) {
							t.Errorf("%s: read rule on %s has verbs %v, want get, list, watch (or get on named objects)", role, res, r.Verbs)
						}
						// Write rules carry exactly the verbs the code uses: the status writer's merge
						// PATCH; client-go's LeaseLock get/create/update.
						switch {
						case res == "dnsendpoints/status" && !slices.Equal(r.Verbs, []string{"patch"}):
							t.Errorf("%s: dnsendpoints/status verbs %v, want [patch]", role, r.Verbs)
						case res == "leases" && len(r.ResourceNames) == 0 && !slices.Equal(r.Verbs, []string{"create"}):
							t.Errorf("%s: leases without resourceNames grants %v, want [create] only", role, r.Verbs)
						case res == "leases" && len(r.ResourceNames) > 0 && !slices.Equal(r.Verbs, []string{"get", "update"}):
							t.Errorf("%s: leases %v grants %v, want [get update]", role, r.ResourceNames, r.Verbs)
						}
					}
				}
			}
			slices.Sort(granted)
			want := slices.Clone(tc.resources)
			slices.Sort(want)
			if !slices.Equal(granted, want) {
				t.Errorf("granted resources %s, want %s", strings.Join(granted, ","), strings.Join(want, ","))
			}
		})
	}
}
