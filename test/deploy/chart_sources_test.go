package deploy

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/source"
	sourcekinds "github.com/zonekeeper/zonekeeper/internal/source/kinds"
)

// TestChartSourcesFollowTheKindsTable renders the chart for each source kind alone, cluster-wide and
// namespaced, and requires the read rules to be exactly what the kind declares it reads (Kind.Reads
// with the default flags), cluster-scoped resources in a ClusterRole even when namespaced. The chart
// accepts exactly the kinds zonekeeper implements.
func TestChartSourcesFollowTheKindsTable(t *testing.T) {
	for _, kind := range sourcekinds.All() {
		if !kind.Cluster {
			continue
		}
		checkChartReads(t, kind, kind.Name, nil, source.DefaultConfig())
		if strings.HasPrefix(kind.Name, "gateway-") {
			cfg := source.DefaultConfig()
			cfg.GatewayListenerSets = true
			checkChartReads(t, kind, kind.Name+"/listener-sets", []string{"gateway.listenerSets=true"}, cfg)
		}
		if kind.Name == "traefik-proxy" {
			cfg := source.DefaultConfig()
			cfg.TraefikEnableLegacy = true
			checkChartReads(t, kind, kind.Name+"/legacy", []string{"traefik.enableLegacy=true"}, cfg)
			cfg.TraefikDisableNew = true
			checkChartReads(t, kind, kind.Name+"/legacy-only", []string{"traefik.enableLegacy=true", "traefik.disableNew=true"}, cfg)
		}
	}
}

// checkChartReads renders the chart with kind as its only source and the values set, cluster-wide and
// namespaced, and compares its read rules with kind.Reads(cfg).
func checkChartReads(t *testing.T, kind source.Kind, name string, values []string, cfg source.Config) {
	want := map[string]bool{} // "Role|group/resource" or "ClusterRole|group/resource"
	wantNamespaced := map[string]bool{}
	for _, r := range kind.Reads(cfg) {
		key := r.Group + "/" + r.Resource
		want["ClusterRole|"+key] = true
		if r.ClusterScoped {
			wantNamespaced["ClusterRole|"+key] = true
		} else {
			wantNamespaced["Role|"+key] = true
		}
	}
	for _, namespaced := range []bool{false, true} {
		name := name
		if namespaced {
			name += "/namespaced"
		}
		t.Run(name, func(t *testing.T) {
			set := append([]string{"sources={" + kind.Name + "}", "provider=inmemory"}, values...)
			expect := want
			if namespaced {
				set = append(set, "namespaced=true")
				expect = wantNamespaced
			}
			got := map[string]bool{}
			for role, rules := range roles(t, mustHelmTemplate(t, chartRender{release: "zk", namespace: "dns", set: set})) {
				roleKind, _, _ := strings.Cut(role, "/")
				for _, r := range rules {
					if !slices.Equal(r.Verbs, []string{"get", "list", "watch"}) || len(r.ResourceNames) > 0 {
						continue
					}
					for _, g := range r.APIGroups {
						for _, res := range r.Resources {
							got[roleKind+"|"+g+"/"+res] = true
						}
					}
				}
			}
			for k := range expect {
				if !got[k] {
					t.Errorf("the chart does not grant get, list, watch %s that --source=%s reads", k, kind.Name)
				}
			}
			for k := range got {
				if !expect[k] {
					t.Errorf("the chart grants %s, which --source=%s does not read", k, kind.Name)
				}
			}
		})
	}
}

// External-dns sources zonekeeper does not implement are refused by the chart, naming the supported ones.
func TestChartRefusesSourcesZonekeeperLacks(t *testing.T) {
	for _, name := range []string{"connector", "fake", "no-such-source"} {
		if _, ok := sourcekinds.Lookup(name); ok {
			continue
		}
		_, err := helmTemplate(t, chartRender{release: "zk", namespace: "dns", set: []string{"sources={" + name + "}", "provider=inmemory"}})
		if err == nil || !strings.Contains(err.Error(), "is not a zonekeeper source (supported: "+strings.Join(clusterKindNames(), ", ")+")") {
			t.Errorf("sources={%s}: %v", name, err)
		}
	}
}

func clusterKindNames() []string {
	var out []string
	for _, k := range sourcekinds.All() {
		if k.Cluster {
			out = append(out, k.Name)
		}
	}
	slices.Sort(out)
	return out
}

// The source switches pass their flags, which the RBAC rules above follow.
func TestChartSourceSwitchesPassTheirFlags(t *testing.T) {
	for _, c := range []struct{ source, value, flag string }{
		{"gateway-httproute", "gateway.listenerSets", "--gateway-listener-sets"},
		{"traefik-proxy", "traefik.enableLegacy", "--traefik-enable-legacy"},
		{"traefik-proxy", "traefik.disableNew", "--traefik-disable-new"},
	} {
		for _, on := range []bool{false, true} {
			objs := mustHelmTemplate(t, chartRender{release: "zk", namespace: "dns",
				set: []string{"sources={" + c.source + "}", "provider=inmemory", c.value + "=" + strconv.FormatBool(on)}})
			if got := slices.Contains(container(t, deployment(t, objs)).Args, c.flag); got != on {
				t.Errorf("%s=%v: %s passed: %v", c.value, on, c.flag, got)
			}
		}
	}
}
