package provider

import (
	"strings"
	"testing"
)

func TestKindNamesAndDescription(t *testing.T) {
	k := Kind{Name: "coredns", Aliases: []string{"skydns"}}
	if !k.Is("skydns") || !k.Is("coredns") || k.Is("aws") || k.Describe() != "coredns (alias skydns)" {
		t.Errorf("%+v: Is/Describe wrong: %q", k, k.Describe())
	}
	if d := (Kind{Name: "aws", Summary: "Route 53"}).Describe(); d != "aws (Route 53)" {
		t.Errorf("Describe %q", d)
	}
}

func TestViewOptionByView(t *testing.T) {
	values := []string{"internal=/a/", "external=/b/", "internal=/c/"}
	o := ViewOption{Flag: "view-x", Values: &values}
	got, err := o.ByView([]string{"internal", "external"})
	if err != nil || got["internal"] != "/c/" || got["external"] != "/b/" {
		t.Fatalf("ByView = %v, %v; the last value of a view wins", got, err)
	}
	for bad, want := range map[string]string{
		"nope":         "--view-x=nope: expected NAME=VALUE",
		"wan=/a/":      "--view-x=wan=/a/: no --view=wan declared",
		"internal=rel": "--view-x=internal=rel: must start with /",
	} {
		values = []string{bad}
		o.Check = func(v string) error {
			if !strings.HasPrefix(v, "/") {
				return errString("must start with /")
			}
			return nil
		}
		if _, err := o.ByView([]string{"internal"}); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", bad, err, want)
		}
	}
}

type errString string

func (e errString) Error() string { return string(e) }
