package app

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/config"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/logging"
	"github.com/zonekeeper/zonekeeper/internal/metrics"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/provider/webhook"
	"github.com/zonekeeper/zonekeeper/internal/view"
)

// runWebhookServer is `zonekeeper webhook` (external-dns's --webhook-server): it serves --provider
// over the webhook protocol on --webhook-server-address, so that external-dns (or another zonekeeper)
// uses zonekeeper's providers through --provider=webhook. Sources are not read. /healthz, /readyz and
// /metrics are served on --metrics-address as usual.
func runWebhookServer(ctx context.Context, cfg config.Config, stderr io.Writer, getenv func(string) string) int {
	log := logging.ForCommand(ctx, stderr, cfg.LogLevel, cfg.LogFormat)
	log.Info("Starting zonekeeper as a webhook server", "version", Version, "provider", cfg.Provider, "address", cfg.WebhookServerAddress)
	filter, err := plan.NewDomainFilter(cfg.DomainFilter, cfg.ExcludeDomains, cfg.RegexDomainFilter, cfg.RegexDomainExclusion)
	if err != nil {
		log.Error("Cannot start", "error", err.Error())
		return ExitError
	}
	m := metrics.New(Version)
	newProvider, err := startProvider(ctx, cfg, providerEnv(cfg, getenv, []*view.Spec{nil}, log))
	if err != nil {
		log.Error("Cannot start", "error", err.Error())
		return ExitError
	}
	p, err := newProvider(provider.View{})
	if err != nil {
		log.Error("Cannot start", "error", err.Error())
		return ExitError
	}
	p = m.InstrumentProvider(cfg.Provider, p)
	// A client (external-dns keeps alias and webhook/ for a webhook server) sends properties the kind
	// does not read and lists the record without: adjusted away, so its next run is in sync.
	if k, ok := cfg.ProviderKind(); ok {
		p = newUnreadPropertiesLogged(provider.OwnPropertiesOnly(p, k.Properties), k, log)
	}
	if cfg.DryRun {
		// As external-dns's --webhook-server --dry-run: the provider is read, never written.
		p = dryRunProvider{Wrapped: provider.Wrapped{Provider: p}, log: log}
	}
	l, err := net.Listen("tcp", cfg.WebhookServerAddress)
	if err != nil {
		log.Error("Cannot start", "error", err.Error())
		return ExitError
	}
	serveWebhookOps(ctx, cfg.MetricsAddress, m, log)
	srv := &http.Server{
		Handler:           webhook.HandlerWithBodyLimit(p, filter, log, cfg.WebhookProviderMaxBodySize),
		ReadHeaderTimeout: cfg.WebhookProviderReadHeaderTimeout,
		IdleTimeout:       cfg.WebhookProviderIdleTimeout,
		ReadTimeout:       cfg.WebhookProviderReadTimeout,
		// Applying a large body to a slow backend takes longer than reading it.
		WriteTimeout: webhook.ApplyTimeout + 30*time.Second,
	}
	// On SIGTERM, applies in progress finish before the process exits: an apply cut between two
	// Route 53 batches would leave a record without its ownership TXT until the next run.
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), webhook.ApplyTimeout)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	log.Info("Serving the webhook protocol", "address", l.Addr().String())
	if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Error("Webhook server stopped", "error", err.Error())
		return ExitError
	}
	<-stopped
	log.Info("Stopped")
	return ExitOK
}

// serveWebhookOps serves /healthz, /readyz (ready as soon as the webhook port listens) and /metrics.
func serveWebhookOps(ctx context.Context, addr string, m *metrics.Metrics, log *slog.Logger) {
	if addr == "" {
		return
	}
	mux := http.NewServeMux()
	ok := func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok\n") }
	mux.HandleFunc("/healthz", ok)
	mux.HandleFunc("/readyz", ok)
	mux.Handle("/metrics", m.Handler())
	l, err := net.Listen("tcp", addr)
	if err != nil {
		log.Error("Cannot serve health and metrics", "address", addr, "error", err.Error())
		return
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	go func() { _ = srv.Serve(l) }()
}

// dryRunProvider logs the changes a webhook client asks for and applies none.
type dryRunProvider struct {
	provider.Wrapped
	log *slog.Logger
}

func (d dryRunProvider) ApplyChanges(_ context.Context, c *plan.Changes) error {
	for _, l := range []struct {
		action string
		eps    []*endpoint.Endpoint
	}{{"CREATE", c.Create}, {"UPDATE", c.UpdateNew}, {"DELETE", c.Delete}} {
		for _, e := range l.eps {
			d.log.Info("Desired change: "+l.action+" "+e.DNSName+" "+e.RecordType+" (dry run)", "targets", e.Targets)
		}
	}
	return nil
}
