// Command zonekeeper keeps DNS records in step with Kubernetes Services and Ingresses.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/zonekeeper/zonekeeper/internal/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := app.Main(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}
