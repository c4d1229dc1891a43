package testbed

import (
	"syscall"
	"testing"
)

// signal sends sig to the process group of the running server.
func (p *process) signal(t testing.TB, sig syscall.Signal) {
	t.Helper()
	p.mu.Lock()
	cmd := p.cmd
	p.mu.Unlock()
	if cmd == nil {
		t.Fatalf("%s is not running", p.name)
	}
	if err := syscall.Kill(-cmd.Process.Pid, sig); err != nil {
		t.Fatalf("%s: %v", p.name, err)
	}
}

// Pause stops the API server with SIGSTOP: connections stay open and nothing answers, as in a network
// partition. Resume (or the test's end) continues it.
func (k *KubeAPIServer) Pause(t testing.TB) {
	t.Helper()
	k.proc.signal(t, syscall.SIGSTOP)
	t.Cleanup(func() { k.proc.signalQuiet(syscall.SIGCONT) })
}

// Resume continues an API server stopped by Pause.
func (k *KubeAPIServer) Resume(t testing.TB) {
	t.Helper()
	k.proc.signal(t, syscall.SIGCONT)
}

// signalQuiet is signal for cleanups, where the process may be gone already.
func (p *process) signalQuiet(sig syscall.Signal) {
	p.mu.Lock()
	cmd := p.cmd
	p.mu.Unlock()
	if cmd != nil {
		_ = syscall.Kill(-cmd.Process.Pid, sig)
	}
}

// Pause stops PowerDNS with SIGSTOP: connections are accepted by the kernel and nothing answers, as in
// a network partition. Resume (or the test's end) continues it.
func (p *PowerDNS) Pause(t testing.TB) {
	t.Helper()
	p.proc.signal(t, syscall.SIGSTOP)
	t.Cleanup(func() { p.proc.signalQuiet(syscall.SIGCONT) })
}

// Resume continues a PowerDNS stopped by Pause.
func (p *PowerDNS) Resume(t testing.TB) {
	t.Helper()
	p.proc.signal(t, syscall.SIGCONT)
}

// Pause stops named with SIGSTOP: UDP queries are dropped and TCP connections hang, as in a network
// partition. Resume (or the test's end) continues it.
func (b *BIND) Pause(t testing.TB) {
	t.Helper()
	b.proc.signal(t, syscall.SIGSTOP)
	t.Cleanup(func() { b.proc.signalQuiet(syscall.SIGCONT) })
}

// Resume continues a named stopped by Pause.
func (b *BIND) Resume(t testing.TB) {
	t.Helper()
	b.proc.signal(t, syscall.SIGCONT)
}
