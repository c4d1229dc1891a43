package config

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/mirror"
	providerkinds "github.com/zonekeeper/zonekeeper/internal/provider/kinds"
)

// providerREADMESections are the sections docs/adding-a-provider.md asks of every provider's README.
var providerREADMESections = []string{"## Configuration", "## Capabilities", "## Differences from external-dns", "## Tests"}

// Issue 13: the README of every provider kind has the sections of docs/adding-a-provider.md, names
// every flag the kind binds, and names no --flag that zonekeeper lacks (a family such as --aws-* and
// the --no-FLAG form of a boolean count).
func TestProviderREADMEs(t *testing.T) {
	var cfg Config
	main := NewFlagSet("zonekeeper", &cfg, io.Discard)
	ref := regexp.MustCompile(`(?:^|[^A-Za-z0-9-])--([a-z0-9][a-z0-9-]*[a-z0-9])(-?\*)?`)
	// A kind declared beside another in one package (they share its flags) is documented there.
	readmeDir := map[string]string{"azure-private-dns": "azure"}
	for _, k := range providerkinds.All(&cfg.Settings) {
		dir := k.Name
		if d, ok := readmeDir[k.Name]; ok {
			dir = d
		}
		path := filepath.Join("..", "provider", dir, "README.md")
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("provider %s: %v", k.Name, err)
			continue
		}
		doc := string(raw)
		for _, s := range providerREADMESections {
			if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(s)).MatchString(doc) {
				t.Errorf("%s: no %q section", path, s)
			}
		}
		own := flag.NewFlagSet(k.Name, flag.ContinueOnError)
		k.Flags(own)
		own.VisitAll(func(f *flag.Flag) {
			if !strings.Contains(doc, "--"+f.Name) {
				t.Errorf("%s does not name --%s, a flag of the %s provider", path, f.Name, k.Name)
			}
		})
		named := 0
		for _, m := range ref.FindAllStringSubmatch(doc, -1) {
			name := m[1]
			named++
			switch {
			case m[2] != "", main.Lookup(name) != nil, strings.HasPrefix(name, "no-") && main.Lookup(name[3:]) != nil:
			case otherToolsFlags[name] != "", mirrorHasFlag(name):
			default:
				t.Errorf("%s names --%s, which no zonekeeper command has", path, name)
			}
		}
		if named == 0 {
			t.Errorf("%s names no flag at all", path)
		}
	}
}

// mirrorHasFlag reports whether zonekeeper mirror (etcd-injector's flags, such as etcd's
// --max-txn-ops) has the flag: an unknown flag is the only error that names itself so.
func mirrorHasFlag(name string) bool {
	_, err := mirror.ParseArgs([]string{"--" + name + "=x"}, func(string) string { return "" }, io.Discard)
	return err == nil || !strings.Contains(err.Error(), "flag provided but not defined")
}
