// Command zonekeeper keeps DNS records in step with Kubernetes Services and Ingresses.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/zonekeeper/zonekeeper/internal/app"
	"github.com/zonekeeper/zonekeeper/internal/logging"
)

// The runtime samples one allocation in 512 KiB for a heap profile once anything linked in makes
// runtime.MemProfile reachable, and keeps the samples in a fixed 1.4 MB hash table plus a record per
// allocation site (go_memstats_buck_hash_sys_bytes: 1.45 MB at 20,000 Ingresses, resident). This
// command serves no profile, so it keeps none. Set in a variable's initializer, as the runtime asks: it
// then holds from the end of the imported packages' init functions on; this package's tests see it too.
var _ = func() int { runtime.MemProfileRate = 0; return 0 }()

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// This process is the command's own: its logger also takes klog's (client-go's) lines. Tests that
	// run app.Main in-process do not mark their context, and leave klog's process-wide logger alone.
	code := app.Main(logging.OwnProcess(ctx), os.Args[1:], os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}
