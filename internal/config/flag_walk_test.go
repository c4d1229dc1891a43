package config

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
)

// Issue 11 item 7: nothing a user sets may be ignored silently. Every flag zonekeeper accepts is set,
// alone, to a value other than its default: either zonekeeper refuses it with an error naming it, or
// the parsed configuration changes, and every field it changes is read by code outside this package's
// parsing (a selector of that field name, other than a binding &x.F or an assignment, in a non-test
// file of the module). The few flags that are accepted and knowingly not applied are listed with the
// reason --help prints (notAppliedReasons), and a run that sets one of them reports it.
func TestEveryFlagChangesBehaviourOrIsRefused(t *testing.T) {
	fs := NewFlagSet("zonekeeper", new(Config), io.Discard)
	refused := refusedFlags()
	notApplied := notAppliedReasons()
	// A run needs a source and a provider; each flag is set after these, and compared with them alone.
	base := []string{"--source=service", "--provider=inmemory"}
	noEnv := func(string) string { return "" }
	def, _, err := Parse("zonekeeper", base, noEnv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	readers := readSelectors(t)

	var silent, unread, noValue, unlogged []string
	fs.VisitAll(func(f *flag.Flag) {
		if _, ok := refused[f.Name]; ok {
			return // TestRefusedFlags covers them: each one is an error naming the flag
		}
		if reason, ok := notApplied[f.Name]; ok {
			// Accepted and not applied: the run logs it with the reason --help prints.
			for _, args := range candidateArgs(f) {
				cfg, _, err := Parse("zonekeeper", append(append([]string{}, base...), args...), noEnv, io.Discard)
				if err != nil {
					continue
				}
				if !slices.Contains(cfg.NotApplied, "--"+f.Name+": "+reason) {
					unlogged = append(unlogged, fmt.Sprintf("%q: NotApplied %q", args, cfg.NotApplied))
				}
				return
			}
			noValue = append(noValue, "--"+f.Name+": no candidate value was accepted")
			return
		}
		var errs []string
		named := false // a value other than the default is refused with an error naming the flag
		for _, args := range candidateArgs(f) {
			cfg, _, err := Parse("zonekeeper", append(append([]string{}, base...), args...), noEnv, io.Discard)
			if err != nil {
				named = named || strings.Contains(err.Error(), "-"+f.Name)
				msg := err.Error()
				if len(msg) > 120 {
					msg = msg[:120] + "…"
				}
				errs = append(errs, fmt.Sprintf("%q: %s", args, msg))
				continue
			}
			changed := changedFields(reflect.ValueOf(def), reflect.ValueOf(cfg), "")
			if len(changed) == 0 {
				errs = append(errs, fmt.Sprintf("%q: no change", args))
				continue
			}
			for _, field := range changed {
				if !readers[lastName(field)] {
					unread = append(unread, fmt.Sprintf("--%s sets %s, which no code reads", f.Name, field))
				}
			}
			return
		}
		noChange := false
		for _, e := range errs {
			noChange = noChange || strings.HasSuffix(e, ": no change")
		}
		switch {
		case named:
			return // an enum of one value, or a value only its default allows
		case noChange:
			silent = append(silent, fmt.Sprintf("--%s (%s)", f.Name, strings.Join(errs, "; ")))
			return
		}
		noValue = append(noValue, fmt.Sprintf("--%s: no candidate value was accepted: %s", f.Name, strings.Join(errs, "; ")))
	})
	for _, l := range [][]string{silent, unread, noValue, unlogged} {
		sort.Strings(l)
	}
	if len(silent) > 0 {
		t.Errorf("flags accepted without effect and without a reason:\n  %s", strings.Join(silent, "\n  "))
	}
	if len(unlogged) > 0 {
		t.Errorf("flags accepted and not applied that a run does not report:\n  %s", strings.Join(unlogged, "\n  "))
	}
	if len(unread) > 0 {
		t.Errorf("flags whose setting nothing reads:\n  %s", strings.Join(unread, "\n  "))
	}
	if len(noValue) > 0 {
		t.Errorf("flags the walk could not set (add a value to flagValues):\n  %s", strings.Join(noValue, "\n  "))
	}
}

// flagArgs gives the command lines for flags whose value is checked (an enum, a share) or that need
// another flag beside them.
var flagArgs = map[string][][]string{
	"provider":                   {{"--provider=coredns"}},
	"registry":                   {{"--registry=noop"}},
	"source":                     {{"--source=ingress"}},
	"crd-registry-namespace":     {{"--registry=crd", "--crd-registry-namespace=dns"}},
	"force-default-targets":      {{"--default-targets=10.0.0.1", "--force-default-targets"}},
	"create-ptr":                 {{"--managed-record-types=A", "--managed-record-types=PTR", "--create-ptr"}},
	"ignore-hostname-annotation": {{"--fqdn-template={{.Name}}.example.org", "--ignore-hostname-annotation"}},
	"txt-encrypt-enabled":        {{"--txt-encrypt-aes-key=0123456789abcdef0123456789abcdef", "--txt-encrypt-enabled"}},
	"guard-max-delete-fraction":  {{"--guard-max-delete-fraction=0.5"}},
	"guard-max-update-fraction":  {{"--guard-max-update-fraction=0.5"}},
}

// candidateArgs are command lines that set f to values other than its default.
func candidateArgs(f *flag.Flag) [][]string {
	if v, ok := flagArgs[f.Name]; ok {
		return v
	}
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		return [][]string{{"--" + f.Name + "=true"}, {"--" + f.Name + "=false"}}
	}
	var out [][]string
	for _, v := range []string{"7", "1h7m", "7.5", "example.org", "x", "10.9.0.0/16", "http://127.0.0.1:1", "debug",
		"json", "upsert-only", "a=b", "A", "us-west-2", os.DevNull, "sha256", "always", "tcp"} {
		out = append(out, []string{"--" + f.Name + "=" + v})
	}
	return out
}

// changedFields lists the fields (dotted paths) where b differs from a.
func changedFields(a, b reflect.Value, path string) []string {
	if a.Kind() == reflect.Struct {
		var out []string
		for i := range a.NumField() {
			name := a.Type().Field(i).Name
			p := name
			if path != "" {
				p = path + "." + name
			}
			out = append(out, changedFields(a.Field(i), b.Field(i), p)...)
		}
		return out
	}
	if a.CanInterface() && reflect.DeepEqual(a.Interface(), b.Interface()) {
		return nil
	}
	return []string{path}
}

func lastName(path string) string { return path[strings.LastIndex(path, ".")+1:] }

// readSelectors returns every name read as x.Name in a non-test Go file of the module.
func readSelectors(t *testing.T) map[string]bool {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		// A binding (fs.StringVar(&cfg.X, …)) or an assignment (s.X = default) is not a read; a pointer
		// handed to anything else is.
		notRead := map[*ast.SelectorExpr]bool{}
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if !isBinder(n.Fun) {
					return true
				}
				for _, arg := range n.Args {
					if u, ok := arg.(*ast.UnaryExpr); ok && u.Op == token.AND {
						if sel, ok := u.X.(*ast.SelectorExpr); ok {
							notRead[sel] = true
						}
					}
				}
			case *ast.AssignStmt:
				for _, lhs := range n.Lhs {
					if sel, ok := lhs.(*ast.SelectorExpr); ok {
						notRead[sel] = true
					}
				}
			case *ast.SelectorExpr:
				if !notRead[n] {
					out[n.Sel.Name] = true
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// isBinder reports whether fun binds a flag to a variable: fs.XxxVar, fs.Var, a Bind… helper, or the
// flag set's local list helper.
func isBinder(fun ast.Expr) bool {
	var name string
	switch f := fun.(type) {
	case *ast.Ident:
		name = f.Name
	case *ast.SelectorExpr:
		name = f.Sel.Name
	}
	return strings.HasSuffix(name, "Var") || strings.HasPrefix(name, "Bind") || strings.HasPrefix(name, "bind") || name == "list"
}
