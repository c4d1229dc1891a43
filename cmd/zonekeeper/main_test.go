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

// Issue 12 item 6: the real binary's client-go code that logs through klog comes out in our format.
// Against an API server that fails every list (failingListAPIServer), the service source's informers
// run client-go's tools/cache reflector, which reports each failed list through utilruntime.HandleError
// and klog ("Failed to watch"); every line on stderr is one of ours, in the --log-format asked for,
// and none has klog's header.
func TestClientGoKlogLinesComeOutInOurFormat(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "zonekeeper")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	api := failingListAPIServer(t)
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "`+api.URL+`"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`), 0o600); err != nil {
		t.Fatal(err)
	}
	// The reflector's message for a list or watch that failed (client-go v0.34 tools/cache/reflector.go,
	// DefaultWatchErrorHandler).
	const reflectorFailure = "Failed to watch"
	klogHeader := regexp.MustCompile(`^[IWEF]\d{4} `)
	textLine := regexp.MustCompile(`^time=\S+ level=(DEBUG|INFO|WARN|ERROR)(-?\d+)? msg=`)
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, "--kubeconfig="+kubeconfig, "--source=service", "--provider=inmemory",
				"--metrics-address=", "--log-format="+format)
			stderr := &lockedBuffer{}
			cmd.Stderr = stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Wait for the reflector's first failed list (logged by klog), then stop the process.
			deadline := time.Now().Add(30 * time.Second)
			for !strings.Contains(stderr.String(), reflectorFailure) && time.Now().Before(deadline) {
				time.Sleep(100 * time.Millisecond)
			}
			_ = cmd.Process.Signal(syscall.SIGTERM)
			_ = cmd.Wait()
			out := stderr.String()
			if !strings.Contains(out, reflectorFailure) {
				t.Fatalf("client-go's reflector logged no failed list through klog in 30 s:\n%s", out)
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
