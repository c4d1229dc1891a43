// Command cloudflare-emulator serves the Cloudflare v4 API emulator (and its
// /_emulator/ control API) on a local port, for end-to-end tests of
// Cloudflare clients such as zonekeeper or external-dns. The first line on
// stdout is the URL to use as CLOUDFLARE_BASE_URL. See
// internal/cloudflareemu/README.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/zonekeeper/zonekeeper/internal/cloudflareemu"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "cloudflare-emulator:", err)
		os.Exit(1)
	}
}

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// run parses flags, creates the zones and serves until ctx ends.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("cloudflare-emulator", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:0", "address to listen on; port 0 picks a free port")
	rate := fs.Float64("rate-limit", cloudflareemu.DefaultRateLimit, "requests per second per credential before HTTP 429 (code 10000); 0 disables. Default: Cloudflare's 1200 per 5 minutes")
	burst := fs.Int("burst", 1200, "token bucket size; 0 means ceil(rate-limit)")
	seed := fs.String("seed", "", "JSON seed file with zones and records (see internal/cloudflareemu/README.md)")
	var zones, tokens listFlag
	fs.Var(&zones, "zone", "zone to create, NAME or NAME:PLAN with PLAN free, pro, business or enterprise (repeatable)")
	fs.Var(&tokens, "api-token", "the only API token(s) to accept (repeatable; none: any token)")
	verbose := fs.Bool("v", false, "log every request to stderr")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *rate < 0 || *burst < 0 {
		return fmt.Errorf("--rate-limit and --burst must not be negative")
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	srv := cloudflareemu.New(cloudflareemu.Options{
		RateLimit: *rate, Burst: *burst, APITokens: tokens,
		Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})),
	})
	var s cloudflareemu.Seed
	if *seed != "" {
		var err error
		if s, err = cloudflareemu.LoadSeedFile(*seed); err != nil {
			return err
		}
	}
	for _, z := range zones {
		name, plan, _ := strings.Cut(z, ":")
		s.Zones = append(s.Zones, cloudflareemu.SeedZone{Name: name, Plan: plan})
	}
	created, err := srv.Seed(s)
	if err != nil {
		return err
	}
	for _, z := range created {
		fmt.Fprintf(stderr, "zone %s %s\n", z.ID, z.Name)
	}
	return srv.ListenAndServe(ctx, *listen, func(url string) {
		fmt.Fprintln(stdout, url+cloudflareemu.APIPrefix)
		fmt.Fprintf(stderr, "control API: %s/_emulator/\n", url)
	})
}
