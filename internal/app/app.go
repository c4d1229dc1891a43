// Package app wires the pipeline stages from a Config and runs one of zonekeeper's commands. It is
// what cmd/zonekeeper calls, and what end-to-end tests call in-process.
package app

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/config"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/health"
	"github.com/zonekeeper/zonekeeper/internal/logging"
	"github.com/zonekeeper/zonekeeper/internal/metrics"
	"github.com/zonekeeper/zonekeeper/internal/mirror"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// Exit codes of `zonekeeper plan`.
const (
	ExitOK         = 0
	ExitError      = 1
	ExitHasChanges = 2
)

// Main runs the command line args (without the program name) and returns the exit code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	if getenv == nil {
		getenv = os.Getenv
	}
	cmd := "run"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	if (cmd == "run" || cmd == "plan" || cmd == "webhook") && helpAllAsked(args) {
		_ = config.WriteFlags(stdout, "all")
		return ExitOK
	}
	switch cmd {
	case "run":
		return runController(ctx, args, stdout, stderr, getenv)
	case "plan":
		return runPlan(ctx, args, stdout, stderr, getenv)
	case "webhook":
		return runController(ctx, append([]string{"--webhook-server"}, args...), stdout, stderr, getenv)
	case "mirror":
		return mirror.Main(ctx, args, stdout, stderr, getenv)
	case "flags":
		return runFlags(args, stdout, stderr)
	case "completion":
		return runCompletion(args, stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, "zonekeeper", Version)
		return ExitOK
	case "help":
		config.WriteUsage(stdout, "zonekeeper")
		return ExitOK
	}
	fmt.Fprintf(stderr, "zonekeeper: unknown command %q\nRun 'zonekeeper --help' for the commands and flags.\n", cmd)
	return ExitError
}

// helpAllAsked reports whether the flags (before a "--") ask for --help-all. It is read before the
// flags are parsed, so that it works beside flags that would not validate.
func helpAllAsked(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "--help-all", "-help-all":
			return true
		}
	}
	return false
}

// runFlags is `zonekeeper flags [GROUP]`: the groups, or every flag of one group ("all": every group).
func runFlags(args []string, stdout, stderr io.Writer) int {
	switch len(args) {
	case 0:
		fmt.Fprintln(stdout, "Flag groups (zonekeeper flags GROUP lists one, zonekeeper flags all every one):")
		for _, g := range config.FlagGroups(config.NewFlagSet("zonekeeper", ptr(config.Default()), io.Discard)) {
			if len(g.Flags) > 0 {
				fmt.Fprintf(stdout, "  %-16s %3d  %s\n", g.Name, len(g.Flags), g.Title)
			}
		}
		return ExitOK
	case 1:
		if err := config.WriteFlags(stdout, args[0]); err != nil {
			fmt.Fprintf(stderr, "zonekeeper flags: %v\n", err)
			return ExitError
		}
		return ExitOK
	}
	fmt.Fprintln(stderr, "zonekeeper flags: one group at most (zonekeeper flags to list them)")
	return ExitError
}

func ptr[T any](v T) *T { return &v }

// Version is set at build time with -ldflags "-X .../internal/app.Version=...".
var Version = "dev"

func parse(name string, args []string, stdout, stderr io.Writer, getenv func(string) string) (config.Config, int, bool) {
	// The flag package writes the help (-h, --help) and, on a flag error, the error and the help: the
	// help goes to stdout as kubectl's does, and an error is reported once, with a pointer to --help.
	var out bytes.Buffer
	cfg, rest, err := config.Parse(name, args, getenv, &out)
	if errors.Is(err, flag.ErrHelp) {
		_, _ = stdout.Write(out.Bytes())
		return cfg, ExitOK, false
	}
	if err == nil && len(rest) > 0 {
		err = fmt.Errorf("unexpected arguments: %s", strings.Join(rest, " "))
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		if out.Len() > 0 { // a flag the parser did not take
			fmt.Fprintf(stderr, "Run '%s --help' for the flags, 'zonekeeper --help-all' for every one.\n", name)
		}
		return cfg, ExitError, false
	}
	return cfg, ExitOK, true
}

func runController(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	cfg, code, ok := parse("zonekeeper", args, stdout, stderr, getenv)
	if !ok {
		return code
	}
	if cfg.PrintVersion {
		fmt.Fprintln(stdout, "zonekeeper", Version)
		return ExitOK
	}
	if cfg.WebhookServer {
		return runWebhookServer(ctx, cfg, stderr, getenv)
	}
	log := logging.ForCommand(ctx, stderr, cfg.LogLevel, cfg.LogFormat)
	log.Info("Starting zonekeeper", "version", Version, "sources", cfg.Sources, "provider", cfg.Provider,
		"registry", cfg.Registry, "owner", cfg.TXTOwnerID, "policy", cfg.Policy, "interval", cfg.Interval.String(),
		"dryRun", cfg.DryRun, "once", cfg.Once)
	for _, n := range cfg.NotApplied {
		log.Warn("Flag accepted for external-dns compatibility and not applied", "flag", n)
	}
	m := metrics.New(Version)
	h := health.New(2*cfg.Interval + 30*time.Second)
	if !cfg.Once {
		serveOps(ctx, cfg.MetricsAddress, h, m, log)
	}
	p, err := build(ctx, cfg, log, getenv, observability{metrics: m, health: h})
	if err != nil {
		log.Error("Cannot start", "error", err.Error())
		return ExitError
	}
	if p.notifier != nil {
		defer p.notifier.Stop()
	}
	h.SourcesSynced()
	if cfg.Once {
		failed := false
		for _, v := range p.views {
			out, err := v.controller.RunOnce(ctx)
			if err != nil {
				log.Error("Failed to do run once", "view", v.name, "error", err.Error())
				failed = true
			}
			for _, g := range out.Guard {
				if g.Held {
					failed = true // logged by the controller, with the digest that lets it through
				}
			}
		}
		for _, d := range p.deferred {
			if err := d.Err(); err != nil {
				// The other sources were published; this one was not, or not fully.
				log.Error("A source could not be read fully", "error", err.Error())
				failed = true
			}
		}
		if failed {
			return ExitError
		}
		printZones(ctx, stdout, p)
		return ExitOK
	}
	lead := func(ctx context.Context) {
		var wg sync.WaitGroup
		for _, v := range p.views {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := v.controller.Run(ctx); err != nil {
					log.Error("Controller stopped", "view", v.name, "error", err.Error())
				}
			}()
		}
		wg.Wait()
	}
	if cfg.LeaderElect {
		setLeader := func(leader bool) {
			h.SetLeader(leader)
			m.SetLeader(leader)
		}
		runElected(ctx, cfg, p.kube, getenv, log, setLeader, lead)
	} else {
		m.SetLeader(true)
		lead(ctx)
	}
	log.Info("Stopped")
	return ExitOK
}

func runPlan(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	cfg, code, ok := parse("zonekeeper plan", args, stdout, stderr, getenv)
	if !ok {
		return code
	}
	cfg.DryRun = true
	if k, _ := cfg.ProviderKind(); k.NoPlan != "" {
		fmt.Fprintf(stderr, "zonekeeper plan: --provider=%s %s\n", cfg.Provider, k.NoPlan)
		return ExitError
	}
	for _, k := range cfg.ViewProviderKinds() {
		if k.NoPlan != "" {
			fmt.Fprintf(stderr, "zonekeeper plan: --view-provider names %s, which %s\n", k.Name, k.NoPlan)
			return ExitError
		}
	}
	log := logging.ForCommand(ctx, stderr, cfg.LogLevel, cfg.LogFormat)
	p, err := build(ctx, cfg, log, getenv, observability{})
	if err != nil {
		fmt.Fprintf(stderr, "zonekeeper plan: %v\n", err)
		return ExitError
	}
	changed := false
	for _, v := range p.views {
		out, err := v.controller.RunOnce(ctx)
		if err != nil {
			fmt.Fprintf(stderr, "zonekeeper plan: %s%v\n", viewPrefix(v.name), err)
			return ExitError
		}
		if v.name != "" {
			fmt.Fprintf(stdout, "View %s:\n", v.name)
		}
		printPlan(stdout, out.Changes)
		printCost(stdout, out.Cost)
		printHeld(stdout, cfg.Policy, out.HeldByPolicy)
		printGuard(stdout, out.Guard)
		changed = changed || out.Changes.HasChanges()
	}
	if changed {
		return ExitHasChanges
	}
	return ExitOK
}

// printCost says what applying the plan would cost in provider API calls, when the provider can tell.
func printCost(w io.Writer, c *provider.CallEstimate) {
	if c != nil && c.Calls > 0 {
		fmt.Fprintf(w, "Applying this plan costs %d API call(s) (%s) in %d zone(s).\n", c.Calls, c.Call, c.Zones)
	}
}

// printGuard shows the zones the mass-change guard would hold, with the digest that lets them through.
func printGuard(w io.Writer, vs []plan.ZoneVerdict) {
	for _, v := range vs {
		if v.Held {
			fmt.Fprintf(w, "HELD    zone %q: the plan %s; zonekeeper would not apply its deletes and updates (confirm with --guard-confirm=%s)\n", v.Zone, v.Reason, v.Digest)
		}
	}
}

func viewPrefix(name string) string {
	if name == "" {
		return ""
	}
	return "view " + name + ": "
}

func printPlan(w io.Writer, c *plan.Changes) {
	if !c.HasChanges() {
		fmt.Fprintln(w, "No changes: all records are already up to date.")
		return
	}
	line := func(action string, e *endpoint.Endpoint) {
		fmt.Fprintf(w, "%-7s %s %s %s", action, e.DNSName, e.RecordType, strings.Join(e.Targets, ","))
		if e.RecordTTL > 0 {
			fmt.Fprintf(w, " ttl=%d", e.RecordTTL)
		}
		if r := e.Resource(); r != "" {
			fmt.Fprintf(w, " (%s)", r)
		}
		fmt.Fprintln(w)
	}
	for _, e := range c.Create {
		line("CREATE", e)
	}
	for i, e := range c.UpdateNew {
		fmt.Fprintf(w, "UPDATE  %s %s %s -> %s\n", e.DNSName, e.RecordType, strings.Join(c.UpdateOld[i].Targets, ","), strings.Join(e.Targets, ","))
	}
	for _, e := range c.Delete {
		line("DELETE", e)
	}
	fmt.Fprintf(w, "%d change(s).\n", c.Len())
}

// printHeld lists the changes to our records that --policy forbids: a run will not make them, but a
// user looking at the plan should see why those records stay.
func printHeld(w io.Writer, policy string, hs []plan.HeldChange) {
	if len(hs) == 0 {
		return
	}
	fmt.Fprintf(w, "Held by --policy=%s (not applied):\n", policy)
	for _, h := range hs {
		fmt.Fprintf(w, "%-7s %s %s %s", h.Action, h.Key.DNSName, h.Key.RecordType, strings.Join(h.Record.Targets, ","))
		if h.Resource != "" {
			fmt.Fprintf(w, " (%s)", h.Resource)
		}
		fmt.Fprintln(w)
	}
}

// printZones shows what the inmemory provider holds after a run, per view: the quickstart's visible
// result.
func printZones(ctx context.Context, w io.Writer, p *pipeline) {
	for _, v := range p.views {
		if v.printsZones { // a view published elsewhere (--view-provider) is not in this process
			printZone(ctx, w, v)
		}
	}
}

func printZone(ctx context.Context, w io.Writer, p *viewPipeline) {
	records, err := p.provider.Records(ctx)
	if err != nil {
		return
	}
	if p.name != "" {
		fmt.Fprintf(w, "; view %s\n", p.name)
	}
	fmt.Fprintln(w, "; zone contents after the run (inmemory provider)")
	for _, e := range records {
		ttl := e.RecordTTL
		if ttl == 0 {
			ttl = p.provider.Capabilities().DefaultTTL
		}
		for _, t := range e.Targets {
			fmt.Fprintf(w, "%-40s %6d IN %-5s %s\n", e.DNSName+".", ttl, e.RecordType, t)
		}
	}
}
