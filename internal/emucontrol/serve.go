package emucontrol

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"time"
)

// ListenAndServe serves h on addr (e.g. "127.0.0.1:0") until ctx ends, over
// TLS when tlsConfig is not nil. ready, if not nil, receives the base URL
// (http://host:port or https://…) once the listener is bound, so a caller
// that asked for port 0 learns the port before the first request.
func ListenAndServe(ctx context.Context, addr string, h http.Handler, tlsConfig *tls.Config, ready func(url string)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	scheme := "http"
	if tlsConfig != nil {
		ln = tls.NewListener(ln, tlsConfig)
		scheme = "https"
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	if ready != nil {
		ready(scheme + "://" + ln.Addr().String())
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-ctx.Done()
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdownCtx)
	}()
	err = srv.Serve(ln)
	<-done
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}
