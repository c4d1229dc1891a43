package endpoint

import "testing"

func TestSplitResource(t *testing.T) {
	for _, tc := range []struct{ in, kind, namespace, name string }{
		{"ingress/default/web", "ingress", "default", "web"},
		{"node/n1", "node", "", "n1"},
		{"httproute/team/a/b", "httproute", "team", "a/b"}, // only the first two slashes split
		{"web", "", "", "web"},
		{"", "", "", ""},
	} {
		kind, namespace, name := SplitResource(tc.in)
		if kind != tc.kind || namespace != tc.namespace || name != tc.name {
			t.Errorf("SplitResource(%q) = %q %q %q, want %q %q %q", tc.in, kind, namespace, name, tc.kind, tc.namespace, tc.name)
		}
	}
}
