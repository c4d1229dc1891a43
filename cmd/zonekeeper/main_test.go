package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Issue 12 item 6: the real binary, with leader election against an API server that refuses
// connections, makes client-go's leaderelection log through klog ("error retrieving resource lock");
// every line on stderr is one of ours, in the --log-format asked for, and none has klog's header.
func TestClientGoKlogLinesComeOutInOurFormat(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "zonekeeper")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	// Port 1 on loopback: every request is refused at once.
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`), 0o600); err != nil {
		t.Fatal(err)
	}
	klogHeader := regexp.MustCompile(`^[IWEF]\d{4} `)
	textLine := regexp.MustCompile(`^time=\S+ level=(DEBUG|INFO|WARN|ERROR)(-?\d+)? msg=`)
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, "--kubeconfig="+kubeconfig, "--source=service", "--provider=inmemory",
				"--leader-elect", "--leader-elect-retry-period=200ms", "--metrics-address=", "--log-format="+format)
			stderr := &lockedBuffer{}
			cmd.Stderr = stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Wait for client-go's first attempt on the Lease (logged by klog), then stop the process.
			deadline := time.Now().Add(30 * time.Second)
			for !strings.Contains(stderr.String(), "error retrieving resource lock") && time.Now().Before(deadline) {
				time.Sleep(100 * time.Millisecond)
			}
			_ = cmd.Process.Signal(syscall.SIGTERM)
			_ = cmd.Wait()
			out := stderr.String()
			if !strings.Contains(out, "error retrieving resource lock") {
				t.Fatalf("client-go's leader election logged nothing through klog in 30 s:\n%s", out)
			}
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				if klogHeader.MatchString(l) {
					t.Errorf("a line in klog's format: %s", l)
					continue
				}
				if format == "json" {
					var rec map[string]any
					if err := json.Unmarshal([]byte(l), &rec); err != nil || rec["level"] == nil || rec["msg"] == nil {
						t.Errorf("not one of our JSON lines (%v): %s", err, l)
					}
				} else if !textLine.MatchString(l) {
					t.Errorf("not one of our text lines: %s", l)
				}
			}
		})
	}
}

// lockedBuffer is a buffer the process's output is copied into while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
