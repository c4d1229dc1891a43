// Package mirror is `zonekeeper mirror`: a watch-based etcd → etcd copy of a CoreDNS prefix with
// etcd-injector's rewrite rules, for split-horizon DNS (the internal view under one prefix, the public
// view under another, rewritten to the WAN address). It replaces etcd-injector: the same flags, but it
// follows the source with a watch, deletes stale keys without an empty window, speaks TLS, and leaves
// CNAME and TXT entries alone unless a rule asks for them.
package mirror

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/zonekeeper/zonekeeper/internal/logging"
)

// Main runs `zonekeeper mirror` with args (without "mirror") and returns the exit code: 0 on success
// (or when ctx ends), 1 on a configuration error or a failed --once sync.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	if getenv == nil {
		getenv = os.Getenv
	}
	cfg, err := ParseArgs(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "zonekeeper mirror: %v\n", err)
		return 1
	}
	if cfg.Rules, err = LoadRules(cfg.RulesFile); err != nil {
		fmt.Fprintf(stderr, "zonekeeper mirror: %v\n", err)
		return 1
	}
	log := logging.New(stderr, cfg.LogLevel, cfg.LogFormat)
	for _, w := range cfg.Warnings() {
		log.Warn(w)
	}
	log.Info("Starting zonekeeper mirror", "src", cfg.Src.String(), "srcDirectory", cfg.srcDir, "dst", cfg.Dst.String(),
		"dstDirectory", cfg.dstDir, "rules", len(cfg.Rules), "ignore", cfg.normalisedIgnores, "delete", cfg.Delete,
		"once", cfg.Once, "resyncInterval", cfg.ResyncInterval.String(), "maxTxnOps", cfg.MaxTxnOps)
	src, err := cfg.Src.Client(cfg.Timeout)
	if err != nil {
		log.Error("Cannot start", "error", err.Error())
		return 1
	}
	defer src.Close()
	dst, err := cfg.Dst.Client(cfg.Timeout)
	if err != nil {
		log.Error("Cannot start", "error", err.Error())
		return 1
	}
	defer dst.Close()
	m, err := New(cfg, src, dst, log)
	if err != nil {
		log.Error("Cannot start", "error", err.Error())
		return 1
	}
	if cfg.Once {
		res, err := m.Sync(ctx)
		if err != nil {
			log.Error("Mirror sync failed", "error", err.Error())
			return 1
		}
		m.logSync(res)
		return 0
	}
	if err := m.Run(ctx); err != nil {
		log.Error("Mirror stopped", "error", err.Error())
		return 1
	}
	log.Info("Stopped")
	return 0
}
