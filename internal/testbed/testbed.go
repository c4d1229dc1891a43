// Package testbed starts the real servers that integration tests talk to — etcd, kube-apiserver and
// CoreDNS — on loopback, each in its own temporary directory, and stops them when the test ends.
//
// The binaries come from hack/testbed.sh, which installs or builds them into a cache directory
// ($ZONEKEEPER_TESTBIN, default ${XDG_CACHE_HOME:-$HOME/.cache}/zonekeeper/testbin). When a binary is
// missing the test is skipped, except under CI=true, where a missing server fails the run.
package testbed

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// BinDir returns the directory holding the test servers.
func BinDir() string {
	if d := os.Getenv("ZONEKEEPER_TESTBIN"); d != "" {
		return d
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(cache, "zonekeeper", "testbin")
}

// Binary returns the path of a test server binary, or skips the test (fails it under CI=true) when the
// binary is not there.
func Binary(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(BinDir(), name)
	if _, err := os.Stat(p); err == nil {
		return p
	}
	if lp, err := exec.LookPath(name); err == nil {
		return lp
	}
	msg := fmt.Sprintf("%s not found in %s or PATH: run hack/testbed.sh", name, BinDir())
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// process is a server child process with its output kept for failure reports.
type process struct {
	name string
	args []string
	dir  string
	// env is added to this process's environment (KEY=VALUE).
	env []string

	mu     sync.Mutex
	cmd    *exec.Cmd
	output *LogBuffer // kept across restarts, so a failure report shows every run
	done   chan struct{}
}

func (p *process) start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	cmd := exec.Command(p.name, p.args...)
	cmd.Dir = p.dir
	if len(p.env) > 0 {
		cmd.Env = append(os.Environ(), p.env...)
	}
	if p.output == nil {
		p.output = &LogBuffer{}
	}
	cmd.Stdout = p.output
	cmd.Stderr = p.output
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	p.cmd, p.done = cmd, done
	return nil
}

// stop ends the process (SIGTERM, then SIGKILL after 5 s) and waits for it.
func (p *process) stop() {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.cmd = nil
	p.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
}

func (p *process) exited() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done == nil {
		return true
	}
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (p *process) log() string {
	p.mu.Lock()
	out := p.output
	p.mu.Unlock()
	if out == nil {
		return ""
	}
	return out.String()
}

// LogBuffer collects the output of a process or a logger that several goroutines write to.
type LogBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (w *LogBuffer) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(b)
}

func (w *LogBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// waitFor polls ready until it returns nil, the process exits, or the timeout passes.
func waitFor(p *process, timeout time.Duration, ready func(ctx context.Context) error) error {
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) {
		if p.exited() {
			return fmt.Errorf("%s exited: %s", filepath.Base(p.name), tail(p.log()))
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		last = ready(ctx)
		cancel()
		if last == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s not ready after %s: %v\n%s", filepath.Base(p.name), timeout, last, tail(p.log()))
}

func tail(s string) string {
	const n = 4000
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
