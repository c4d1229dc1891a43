// Package logging builds the process logger from --log-level and --log-format, for every zonekeeper
// command.
package logging

import (
	"io"
	"log/slog"
	"strings"
)

// New returns a log/slog logger writing text or JSON ("json") at the given level. external-dns's level
// names are accepted: trace is debug, fatal and panic are error.
func New(w io.Writer, level, format string) *slog.Logger {
	var l slog.Level
	switch strings.ToLower(level) {
	case "debug", "trace":
		l = slog.LevelDebug
	case "warn", "warning":
		l = slog.LevelWarn
	case "error", "fatal", "panic":
		l = slog.LevelError
	default:
		l = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: l}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
