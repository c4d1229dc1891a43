package kube

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The binary links none of client-go's clientset, its scheme of every built-in group, the shared
// informer factories, discovery or client-go's leader election: together they were a third of the
// binary and about 13 MB of its resident pages (docs/benchmarks.md, issue 15). A new import of any of
// them, direct or through a library, fails here with the chain that pulls it in.
func TestBinaryLinksNoClientset(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	forbidden := []string{
		"k8s.io/client-go/kubernetes",
		"k8s.io/client-go/kubernetes/scheme",
		"k8s.io/client-go/informers",
		"k8s.io/client-go/discovery",
		"k8s.io/client-go/dynamic/dynamicinformer",
		"k8s.io/client-go/tools/leaderelection",
		"sigs.k8s.io/gateway-api/pkg/client/clientset/versioned",
	}
	root := filepath.Join("..", "..")
	out, err := exec.Command("go", "list", "-C", root, "-deps", "-f", "{{.ImportPath}}|{{join .Imports \" \"}}", "./cmd/zonekeeper").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	importers := map[string][]string{}
	linked := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, "|")
		linked[pkg] = true
		for _, imp := range strings.Fields(imports) {
			importers[imp] = append(importers[imp], pkg)
		}
	}
	if !linked["github.com/zonekeeper/zonekeeper/internal/kube"] {
		t.Fatal("go list's answer does not hold internal/kube: the check would pass for nothing")
	}
	for _, pkg := range forbidden {
		if linked[pkg] {
			t.Errorf("./cmd/zonekeeper links %s, imported by %s", pkg, strings.Join(importers[pkg], ", "))
		}
	}
}
