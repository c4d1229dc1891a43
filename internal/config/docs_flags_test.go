package config

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/mirror"
)

// otherToolsFlags are flags the docs name that belong to other programs.
var otherToolsFlags = map[string]string{
	"help":             "zonekeeper's and external-dns's --help",
	"help-all":         "zonekeeper's own, read before the flags are parsed (internal/app)",
	"set":              "helm",
	"create-namespace": "helm",
	"from-literal":     "kubectl create secret",
	"platform":         "docker buildx",
	"key":              "the chart's extraArgs example (key: value → --key=value)",
	"node-ip":          "kubelet",
	"node-external-ip": "k3s",
	// gcloud, in docs/google.md
	"description": "gcloud", "dns-name": "gcloud", "visibility": "gcloud", "networks": "gcloud", "project": "gcloud",
	"permissions": "gcloud", "title": "gcloud", "iam-account": "gcloud", "member": "gcloud", "role": "gcloud",
	"from-file": "kubectl create secret",
}

// Issue 11 defect 9: every --flag the docs and READMEs name exists. Flags of zonekeeper mirror are
// checked against its flag set, those of an emulator's docs against the emulator command's source; "--prefix-*" names a family and --no-FLAG the negation of a boolean.
func TestEveryFlagTheDocsNameExists(t *testing.T) {
	var cfg Config
	main := NewFlagSet("zonekeeper", &cfg, io.Discard)
	mirrorHas := func(name string) bool { // an unknown flag is the only error that names itself so
		_, err := mirror.ParseArgs([]string{"--" + name + "=x"}, func(string) string { return "" }, io.Discard)
		return err == nil || !strings.Contains(err.Error(), "flag provided but not defined")
	}
	// An emulator's docs (docs/NAME-emulator.md, internal/NAMEemu/README.md) name the flags of its
	// command, cmd/NAME-emulator.
	emulatorDoc := regexp.MustCompile(`(?:^|/)(?:([a-z0-9]+)-emulator\.md|([a-z0-9]+)emu/README\.md)$`)
	emulatorHas := func(doc, name string) bool {
		m := emulatorDoc.FindStringSubmatch(doc)
		if m == nil {
			return false
		}
		src, err := os.ReadFile("../../cmd/" + m[1] + m[2] + "-emulator/main.go")
		if err != nil {
			t.Errorf("%s documents an emulator without a command: %v", doc, err)
			return false
		}
		return bytes.Contains(src, []byte(`"`+name+`", `))
	}
	flagRef := regexp.MustCompile("(?:^|[\\s`(\\[,|/])--([a-z0-9][a-z0-9-]*[a-z0-9])(-\\*|-[A-Z])?")
	checked := 0
	err := filepath.WalkDir("../..", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".md") {
			return nil
		}
		doc, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range flagRef.FindAllStringSubmatch(string(doc), -1) {
			name, family := m[1], m[2]
			checked++
			switch {
			case family != "": // --aws-* or --no-FLAG
			case main.Lookup(name) != nil, strings.HasPrefix(name, "no-") && main.Lookup(name[3:]) != nil:
			case mirrorHas(name):
			case emulatorHas(p, name):
			case otherToolsFlags[name] != "":
			default:
				t.Errorf("%s names --%s, which no zonekeeper command has", strings.TrimPrefix(p, "../../"), name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 200 {
		t.Fatalf("only %d flag references found in the docs: is the walk broken?", checked)
	}
	t.Logf("%d flag references checked", checked)
}
