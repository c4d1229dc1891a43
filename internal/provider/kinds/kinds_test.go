package kinds

import (
	"context"
	"flag"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// Every kind of the table is complete, its names and its flags are its own, and each is declared in
// the directory that bears its name.
func TestEveryKindIsComplete(t *testing.T) {
	var s Settings
	SetDefaults(&s)
	fs := flag.NewFlagSet("kinds", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	names := map[string]string{}
	typ := reflect.TypeOf(s)
	var all []provider.Kind
	dirs := map[string]string{} // kind name → the directory that must declare it
	for i := range typ.NumField() {
		ks := kindsOf(typ.Field(i).Name, reflect.ValueOf(&s).Elem().Field(i).Addr().Interface())
		for _, k := range ks {
			// Kinds that share settings (azure, azure-private-dns) live in the first one's directory.
			dirs[k.Name] = typ.Field(i).Type.PkgPath() + " " + ks[0].Name
		}
		all = append(all, ks...)
	}
	if len(all) != len(All(&s)) {
		t.Fatalf("All returns %d kinds, the fields declare %d", len(All(&s)), len(all))
	}
	for i, k := range all {
		if k.Name == "" || k.Flags == nil || k.Defaults == nil || k.New == nil {
			t.Errorf("kind %d (%q) lacks a name, Flags, Defaults or New", i, k.Name)
			continue
		}
		if dir, want, _ := strings.Cut(dirs[k.Name], " "); !strings.HasSuffix(dir, "/internal/provider/"+want) {
			t.Errorf("kind %s is declared in %s, not internal/provider/%s", k.Name, dir, want)
		}
		for _, n := range k.Names() {
			if other, dup := names[n]; dup {
				t.Errorf("--provider=%s selects both %s and %s", n, other, k.Name)
			}
			names[n] = k.Name
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("kind %s binds a flag another kind has: %v", k.Name, r)
				}
			}()
			k.Flags(fs)
		}()
		for _, o := range k.ViewOptions {
			if fs.Lookup(o.Flag) == nil || o.Values == nil {
				t.Errorf("kind %s: view option --%s is not one of its flags", k.Name, o.Flag)
			}
		}
	}
	// Binding keeps the defaults: each flag's default is the value Defaults set.
	if defaults := func() Settings { var d Settings; SetDefaults(&d); return d }(); !reflect.DeepEqual(defaults, s) {
		t.Errorf("binding the flags changed the settings:\n%+v\nwant the defaults\n%+v", s, defaults)
	}
	if k, ok := Lookup(&s, "skydns"); !ok || k.Name != "coredns" {
		t.Errorf("--provider=skydns selects %q", k.Name)
	}
	if got := strings.Join(Names(), ","); got != "aws,coredns,rfc2136,pdns,cloudflare,google,azure,azure-private-dns,builtin,inmemory,webhook" {
		t.Errorf("Names() = %s", got)
	}
}

// A kind is bound to the settings it is taken from: a flag set on one Settings reaches that one's
// constructor only.
func TestKindsAreBoundToTheirSettings(t *testing.T) {
	var a, b Settings
	SetDefaults(&a)
	SetDefaults(&b)
	fs := flag.NewFlagSet("a", flag.ContinueOnError)
	k, _ := Lookup(&a, "inmemory")
	k.Flags(fs)
	if err := fs.Parse([]string{"--inmemory-zone=example.org"}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(a.InMemoryZones, ",") != "example.org" || len(b.InMemoryZones) != 0 {
		t.Fatalf("a %v, b %v", a.InMemoryZones, b.InMemoryZones)
	}
	newView, err := k.New(context.Background(), provider.Env{Views: []provider.View{{}}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := newView(provider.View{})
	if err != nil {
		t.Fatal(err)
	}
	outside := &plan.Changes{Create: []*endpoint.Endpoint{endpoint.New("www.example.com", endpoint.RecordTypeA, "192.0.2.1")}}
	if _, rejected := provider.AsApplyError(p.ApplyChanges(context.Background(), outside)); !rejected {
		t.Fatal("the instance does not serve --inmemory-zone=example.org only")
	}
}
