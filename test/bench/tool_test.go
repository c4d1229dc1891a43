//go:build sidebyside

package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// toolProcess is external-dns or zonekeeper running as its own process, so that its memory and CPU
// can be read from /proc; its output goes to a file in the test's temporary directory (at 100k
// records the logs are too large to keep in memory).
type toolProcess struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	done    chan struct{}
	err     error // set before done is closed
}

// startTool starts bin with args and the extra environment, and stops it when the test ends. bin is
// read from disk, not from the page cache (dropFromPageCache), so that each tool's resident binary
// pages do not depend on how its file was written.
func startTool(t *testing.T, name, bin string, args, env []string) *toolProcess {
	t.Helper()
	p := &toolProcess{name: name, logPath: filepath.Join(t.TempDir(), name+".log"), done: make(chan struct{})}
	logFile, err := os.Create(p.logPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := dropFromPageCache(bin); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Env = env
	p.cmd.Stdout, p.cmd.Stderr = logFile, logFile
	// Its own process group, killed with the harness if the harness dies first.
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := p.cmd.Start(); err != nil {
		logFile.Close()
		t.Fatalf("starting %s (%s): %v", name, bin, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	t.Cleanup(p.stop)
	return p
}

func (p *toolProcess) pid() int { return p.cmd.Process.Pid }

// alive is nil while the process runs, and an error once it has exited.
func (p *toolProcess) alive() error {
	select {
	case <-p.done:
		return fmt.Errorf("%s exited (%v)", p.name, p.err)
	default:
		return nil
	}
}

// stop ends the process group (SIGTERM, then SIGKILL after 10 s) and waits for it; calling it again
// does nothing.
func (p *toolProcess) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = syscall.Kill(-p.pid(), syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-p.pid(), syscall.SIGKILL)
		<-p.done
	}
}

// logTail is the last n lines of the process's output, each cut to 600 bytes (external-dns logs its
// whole configuration on one line).
func (p *toolProcess) logTail(n int) string {
	b, err := os.ReadFile(p.logPath)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	lines = lines[max(0, len(lines)-n):]
	for i, l := range lines {
		if len(l) > 600 {
			lines[i] = l[:600] + "…"
		}
	}
	return strings.Join(lines, "\n")
}
