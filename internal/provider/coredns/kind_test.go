package coredns

import (
	"context"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// The per-view etcd prefix is the coredns kind's own option: --view-coredns-prefix, else
// --coredns-prefix, and two views never share one.
func TestViewPrefixes(t *testing.T) {
	views := []provider.View{{Name: "internal"}, {Name: "external"}}
	var s CoreDNSFlags
	k := s.Kind()
	k.Defaults()
	s.ViewCoreDNSPrefix = []string{"external=/external/"}
	newView, err := k.New(context.Background(), provider.Env{Views: views})
	if err != nil {
		t.Fatal(err)
	}
	for want, v := range map[string]provider.View{"/skydns/": views[0], "/external/": views[1]} {
		p, err := newView(v)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.(*Provider).layout.prefix; got != want {
			t.Errorf("view %s writes under %s, want %s", v.Name, got, want)
		}
		_ = p.(*Provider).Close()
	}
	for values, want := range map[string]string{
		"":                                    "views internal and external both write etcd prefix /skydns/: give each view its own with --view-coredns-prefix",
		"external=skydns":                     "--view-coredns-prefix=external=skydns: an etcd prefix starts with /",
		"wan=/wan/":                           "--view-coredns-prefix=wan=/wan/: no --view=wan declared",
		"internal=/skydns/,external=/skydns/": "views internal and external both write etcd prefix /skydns/",
	} {
		s.ViewCoreDNSPrefix = nil
		if values != "" {
			s.ViewCoreDNSPrefix = strings.Split(values, ",")
		}
		if _, err := k.New(context.Background(), provider.Env{Views: views}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--view-coredns-prefix %q: %v, want %q", values, err, want)
		}
	}
}
