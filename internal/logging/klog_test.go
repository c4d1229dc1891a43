package logging

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"

	"k8s.io/klog/v2"
)

// klogHeader is the start of a line in klog's own format: severity, month and day.
var klogHeader = regexp.MustCompile(`^[IWEF]\d{4} `)

// textLine is a line of slog's text handler.
var textLine = regexp.MustCompile(`^time=\S+ level=(DEBUG|INFO|WARN|ERROR)(-?\d+)? msg=`)

// Issue 12 item 6: once the owning command routes klog, klog's calls (as client-go makes them) come
// out as lines of our format, text or JSON, at our level filter, and none in klog's own format.
func TestKlogLinesComeOutInOurFormat(t *testing.T) {
	t.Cleanup(klog.ClearLogger)
	for _, format := range []string{"json", "text"} {
		var buf bytes.Buffer
		ForCommand(OwnProcess(context.Background()), &buf, "info", format)
		klog.ErrorS(errors.New("connection refused"), "Unable to write event", "event", "default/x")
		klog.Errorf("error retrieving resource lock %s", "default/zonekeeper")
		klog.Warning("a warning")
		klog.InfoS("attempting to acquire leader lease", "lease", "default/zonekeeper")
		klog.V(4).Info("a debug line that info level leaves out")
		klog.Flush()
		lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
		if len(lines) != 4 {
			t.Fatalf("%s: %d lines, want 4 (the V(4) line filtered):\n%s", format, len(lines), buf.String())
		}
		for _, l := range lines {
			if klogHeader.MatchString(l) {
				t.Errorf("%s: a klog-format line: %s", format, l)
			}
			if format == "json" {
				var rec map[string]any
				if err := json.Unmarshal([]byte(l), &rec); err != nil || rec["level"] == nil || rec["msg"] == nil || rec["time"] == nil {
					t.Errorf("json: not one of our JSON lines (%v): %s", err, l)
				}
			} else if !textLine.MatchString(l) {
				t.Errorf("text: not one of our text lines: %s", l)
			}
		}
		if !strings.Contains(lines[0], "ERROR") || !strings.Contains(lines[0], "connection refused") || !strings.Contains(lines[0], "default/x") {
			t.Errorf("%s: klog.ErrorS lost its level, error or key/value: %s", format, lines[0])
		}
	}
}

// A command that does not own the process (an in-process test instance) leaves klog's logger alone.
func TestForCommandWithoutOwnProcessLeavesKlog(t *testing.T) {
	t.Cleanup(klog.ClearLogger)
	klog.ClearLogger()
	var buf bytes.Buffer
	ForCommand(context.Background(), &buf, "info", "json")
	klog.ErrorS(errors.New("x"), "not ours")
	klog.Flush()
	if buf.Len() > 0 {
		t.Errorf("klog was routed without OwnProcess: %s", buf.String())
	}
}
