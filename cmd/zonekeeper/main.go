// Command zonekeeper keeps DNS records in step with Kubernetes Services and Ingresses.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/zonekeeper/zonekeeper/internal/app"
	"github.com/zonekeeper/zonekeeper/internal/logging"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// This process is the command's own: its logger also takes klog's (client-go's) lines. Tests that
	// run app.Main in-process do not mark their context, and leave klog's process-wide logger alone.
	code := app.Main(logging.OwnProcess(ctx), os.Args[1:], os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}
