package e2e

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// The README's run command, as a new user runs it: hack/quickstart.sh serves example.com from the
// example manifests with two views; dig from 127.0.0.1 gets the internal answer, from 127.0.0.2 the
// external one, and a name outside the zone is refused.
func TestQuickstartScript(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the command")
	}
	port := testbed.FreePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, "../../hack/quickstart.sh")
	cmd.Env = append(cmd.Environ(), fmt.Sprintf("QUICKSTART_PORT=%d", port))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	out := &testbed.LogBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("the quickstart did not stop on SIGTERM")
		}
		if t.Failed() {
			t.Logf("quickstart output:\n%s", tail(out.String(), 6000))
		}
	}()
	server := fmt.Sprintf("127.0.0.1:%d", port)
	expect := func(from, name string, want ...string) {
		t.Helper()
		testbed.Eventually(t, 3*time.Minute, name+" from "+from, func() error { // the first run compiles
			got, err := lookupFrom(from, server, name, dns.TypeA)
			if err != nil {
				return err
			}
			if strings.Join(got, ",") != strings.Join(want, ",") {
				return fmt.Errorf("got %v", got)
			}
			return nil
		})
	}
	expect("127.0.0.1", "dev1.example.com", "192.168.10.51")
	expect("127.0.0.2", "dev1.example.com", "203.0.113.7")
	expect("127.0.0.1", "api.example.com", "203.0.113.20") // the Service with ttl: abc is still published
	m := new(dns.Msg)
	m.SetQuestion("example.org.", dns.TypeA)
	r, err := dns.Exchange(m, server)
	if err != nil || r.Rcode != dns.RcodeRefused {
		t.Fatalf("outside the zone: %v %v, want REFUSED", r, err)
	}
	if !strings.Contains(out.String(), `object="Service default/broken-ttl"`) || strings.Count(out.String(), "Invalid input ignored") != 1 {
		t.Errorf("the ttl: abc warning must appear once, naming the Service")
	}
}
