package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// buildZonekeeper compiles the command into the test's temporary directory.
func buildZonekeeper(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "zonekeeper")
	cmd := exec.Command("go", "build", "-o", bin, "../../cmd/zonekeeper")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// zonekeeperProcess is one process of the real binary that a test started: a replica of one
// installation, or a shard of a sharded one.
type zonekeeperProcess struct {
	name    string
	cmd     *exec.Cmd
	log     *testbed.LogBuffer
	metrics string // its --metrics-address
}

// startZonekeeper runs bin as the process kind name ("replica a", "shard east") with args, its metrics
// on a free loopback port, the test's environment plus env, and a process group of its own (a test
// stops the group to partition it). When the test ends it is continued, terminated and waited for, its
// log is checked for the secrets its arguments configure, and, if the test failed, its log's tail is
// printed.
func startZonekeeper(t *testing.T, bin, kind, name string, env []string, args ...string) *zonekeeperProcess {
	t.Helper()
	p := &zonekeeperProcess{name: name, log: &testbed.LogBuffer{}, metrics: fmt.Sprintf("127.0.0.1:%d", testbed.FreePort(t))}
	p.cmd = exec.Command(bin, append(args, "--metrics-address="+p.metrics)...)
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	label := kind + " " + name
	t.Cleanup(func() {
		_ = p.cmd.Process.Signal(syscall.SIGCONT)
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		_, _ = p.cmd.Process.Wait()
		checkNoSecretsLogged(t, label, p.log.String(), configuredSecrets(p.cmd.Args))
		if t.Failed() {
			t.Logf("%s log:\n%s", label, tail(p.log.String(), 6000))
		}
	})
	return p
}
