package logging

import (
	"context"
	"io"
	"log/slog"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
)

// client-go logs through klog (leader election, the event broadcaster, reflectors), which by default
// writes its own header format to stderr ("E1126 07:02:39.172818 5557 event.go:368] ..."), beside our
// slog lines. RouteKlog hands klog our handler instead, so every line has one format (--log-format)
// and one level filter (--log-level; klog's V(n) lines are slog level -n, below info).
//
// klog's logger is a process-wide global. Only the command that owns the process sets it: main marks
// its context with OwnProcess, and ForCommand routes klog only under that mark. zonekeeper instances
// started in-process by tests (several at once, each with its own stderr) leave klog alone, so they
// do not race on the global or steal each other's klog lines; their klog output stays klog's.

// RouteKlog sends every klog line to h, from now on, for the whole process.
func RouteKlog(h slog.Handler) {
	klog.SetLoggerWithOptions(logr.FromSlogHandler(h), klog.ContextualLogger(true))
}

type ownProcessKey struct{}

// OwnProcess marks ctx as the context of the command that owns the process (cmd/zonekeeper's main):
// its logger may take over process-wide logging such as klog's.
func OwnProcess(ctx context.Context) context.Context {
	return context.WithValue(ctx, ownProcessKey{}, true)
}

// ForCommand is New for a command's logger; in the command that owns the process (OwnProcess) it also
// routes klog through the logger's handler.
func ForCommand(ctx context.Context, w io.Writer, level, format string) *slog.Logger {
	log := New(w, level, format)
	if own, _ := ctx.Value(ownProcessKey{}).(bool); own {
		RouteKlog(log.Handler())
	}
	return log
}
