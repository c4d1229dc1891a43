// Command route53-emulator serves the Route 53 API emulator (and its STS
// endpoint and /_emulator/ control API) on a local port, for end-to-end tests
// of Route 53 clients such as zonekeeper or external-dns. See
// docs/route53-emulator.md.
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
	"time"

	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "route53-emulator:", err)
		os.Exit(1)
	}
}

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// run parses flags, seeds the emulator and serves until ctx ends. The first
// line on stdout is the base URL, so a test harness can read it.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("route53-emulator", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:0", "address to listen on; port 0 picks a free port")
	rate := fs.Float64("rate-limit", 5, "Route 53 requests per second per account before Throttling; 0 disables")
	burst := fs.Int("burst", 0, "token bucket size; 0 means ceil(rate-limit)")
	delay := fs.Duration("propagation-delay", time.Second, "how long changes stay PENDING before INSYNC")
	seed := fs.String("seed", "", "JSON seed file with zones and records (see docs/route53-emulator.md)")
	busy := fs.Bool("busy-while-pending", false, "answer PriorRequestNotComplete while a zone has a PENDING change")
	reserved := fs.Bool("reject-reserved-names", false, "refuse example.com/.net/.org zones as real AWS does")
	unsigned := fs.Bool("allow-unsigned", false, "accept Route 53 requests without a SigV4 Authorization header")
	checkAlias := fs.Bool("check-alias-targets", false, "reject ELB/CloudFront/Global Accelerator alias targets not registered via the control API")
	audience := fs.String("sts-audience", "sts.amazonaws.com", "required aud claim of web identity tokens")
	issuer := fs.String("sts-issuer", "", "required iss claim of web identity tokens (empty: any)")
	var subjects listFlag
	fs.Var(&subjects, "sts-allowed-subject", "sub claim allowed to assume roles (repeatable; none: any)")
	verbose := fs.Bool("v", false, "log every request to stderr")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *rate < 0 || *burst < 0 || *delay < 0 {
		return fmt.Errorf("--rate-limit, --burst and --propagation-delay must not be negative")
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	srv := route53emu.New(route53emu.Options{
		RateLimit: *rate, Burst: *burst, PropagationDelay: *delay,
		BusyWhilePending: *busy, RejectReservedNames: *reserved, AllowUnsigned: *unsigned, CheckAliasTargetsExist: *checkAlias,
		STS:    route53emu.STSOptions{Audience: *audience, Issuer: *issuer, AllowedSubjects: subjects},
		Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})),
	})
	if *seed != "" {
		s, err := route53emu.LoadSeedFile(*seed)
		if err != nil {
			return err
		}
		zones, err := srv.Seed(s)
		if err != nil {
			return fmt.Errorf("seed file %s: %w", *seed, err)
		}
		for _, z := range zones {
			fmt.Fprintf(stderr, "seeded zone %s %s\n", z.ID, z.Name)
		}
	}
	return srv.ListenAndServe(ctx, *listen, func(url string) { fmt.Fprintln(stdout, url) })
}
