package app

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/health"
	"github.com/zonekeeper/zonekeeper/internal/metrics"
)

// serveOps serves /healthz, /readyz and /metrics on addr until ctx ends. A failure to listen is logged
// and costs only the endpoints: DNS keeps being reconciled.
func serveOps(ctx context.Context, addr string, h *health.Health, m *metrics.Metrics, log *slog.Logger) {
	if addr == "" {
		return
	}
	mux := http.NewServeMux()
	h.Register(mux)
	mux.Handle("/metrics", m.Handler())
	l, err := net.Listen("tcp", addr)
	if err != nil {
		log.Error("Cannot serve health and metrics", "address", addr, "error", err.Error())
		return
	}
	log.Info("Serving health and metrics", "address", l.Addr().String())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	go func() {
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("Health and metrics server stopped", "error", err.Error())
		}
	}()
}
