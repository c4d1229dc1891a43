package app

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/config"
)

func completionScript(t *testing.T, shell string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := Main(context.Background(), []string{"completion", shell}, &out, &errOut, func(string) string { return "" }); code != ExitOK {
		t.Fatalf("zonekeeper completion %s: exit %d: %s", shell, code, errOut.String())
	}
	p := filepath.Join(t.TempDir(), "zonekeeper."+shell)
	if err := os.WriteFile(p, out.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Issue 12 item 6: each completion script is valid syntax for its shell (checked by the shell itself,
// where it is installed).
func TestCompletionScriptsParse(t *testing.T) {
	for shell, check := range map[string][]string{"bash": {"bash", "-n"}, "zsh": {"zsh", "-n"}, "fish": {"fish", "--no-execute"}} {
		t.Run(shell, func(t *testing.T) {
			if _, err := exec.LookPath(check[0]); err != nil {
				t.Skipf("%s is not installed", check[0])
			}
			p := completionScript(t, shell)
			if out, err := exec.Command(check[0], append(check[1:], p)...).CombinedOutput(); err != nil {
				t.Fatalf("%s %s: %v\n%s", strings.Join(check, " "), shell, err, out)
			}
		})
	}
	var errOut bytes.Buffer
	if code := Main(context.Background(), []string{"completion", "tcsh"}, &bytes.Buffer{}, &errOut, nil); code != ExitError || !strings.Contains(errOut.String(), "bash, zsh or fish") {
		t.Errorf("zonekeeper completion tcsh: exit %d, %q", code, errOut.String())
	}
}

// The bash completion, run by bash as it completes a command line, offers the provider kinds for
// --provider (both spellings), the subcommands, the flags, and the flag groups after `flags`.
func TestBashCompletionOffersValues(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	p := completionScript(t, "bash")
	complete := func(words ...string) []string {
		t.Helper()
		var quoted []string
		for _, w := range words {
			quoted = append(quoted, "'"+w+"'")
		}
		script := "source " + p + "\nCOMP_WORDS=(" + strings.Join(quoted, " ") + ")\nCOMP_CWORD=" +
			itoa(len(words)-1) + "\n_zonekeeper\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n"
		out, err := exec.Command("bash", "-c", script).CombinedOutput()
		if err != nil {
			t.Fatalf("bash: %v\n%s", err, out)
		}
		return strings.Fields(string(out))
	}
	providers := config.FlagValues("provider")
	for _, words := range [][]string{{"zonekeeper", "--provider", ""}, {"zonekeeper", "--source=service", "--provider", "=", ""}, {"zonekeeper", "plan", "--provider", "="}} {
		got := complete(words...)
		if !slices.Equal(got, providers) || !slices.Contains(got, "rfc2136") {
			t.Errorf("completing %q: %q, want the provider kinds %q", words, got, providers)
		}
	}
	if got := complete("zonekeeper", "--provider", "=", "cl"); !slices.Equal(got, []string{"cloudflare"}) {
		t.Errorf("completing --provider=cl: %q", got)
	}
	if got := complete("zonekeeper", "--log-format", ""); !slices.Equal(got, []string{"text", "json"}) {
		t.Errorf("completing --log-format: %q", got)
	}
	if got := complete("zonekeeper", "com"); !slices.Equal(got, []string{"completion"}) {
		t.Errorf("completing a command: %q", got)
	}
	if got := complete("zonekeeper", "--txt-own"); !slices.Equal(got, []string{"--txt-owner-id"}) {
		t.Errorf("completing a flag: %q", got)
	}
	if got := complete("zonekeeper", "--akamai-"); len(got) != 0 {
		t.Errorf("completion offers refused flags: %q", got)
	}
	if got := complete("zonekeeper", "flags", ""); !slices.Contains(got, "aws") || !slices.Contains(got, "refused") {
		t.Errorf("completing zonekeeper flags: %q", got)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// Every subcommand the help lists is one Main dispatches; --help and --help-all go to stdout.
func TestHelpAndCommands(t *testing.T) {
	ctx := context.Background()
	for _, c := range config.Commands() {
		var out, errOut bytes.Buffer
		Main(ctx, []string{c.Name, "--help"}, &out, &errOut, func(string) string { return "" })
		if strings.Contains(errOut.String(), "unknown command") {
			t.Errorf("the help lists %q, which Main does not dispatch", c.Name)
		}
	}
	var out, errOut bytes.Buffer
	if code := Main(ctx, []string{"--help"}, &out, &errOut, nil); code != ExitOK || errOut.Len() > 0 || strings.Count(out.String(), "\n") >= 120 {
		t.Errorf("zonekeeper --help: exit %d, %d lines on stdout, stderr %q", code, strings.Count(out.String(), "\n"), errOut.String())
	}
	out.Reset()
	if code := Main(ctx, []string{"--source=service", "--help-all"}, &out, &errOut, nil); code != ExitOK || !strings.Contains(out.String(), "--aws-region string") || !strings.Contains(out.String(), "--akamai-access-token") {
		t.Errorf("zonekeeper --help-all: exit %d, %d lines", code, strings.Count(out.String(), "\n"))
	}
	out.Reset()
	errOut.Reset()
	if code := Main(ctx, []string{"--nonesuch"}, &out, &errOut, nil); code != ExitError || strings.Count(errOut.String(), "\n") != 2 || !strings.Contains(errOut.String(), "--help") {
		t.Errorf("an unknown flag: exit %d, stderr %q (want the error and a pointer to --help)", code, errOut.String())
	}
}
