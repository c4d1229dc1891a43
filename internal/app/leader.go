package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"os"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/config"
	"github.com/zonekeeper/zonekeeper/internal/controller"
	"github.com/zonekeeper/zonekeeper/internal/kube"
)

// runElected runs lead whenever this replica holds the Lease, until ctx ends. Followers keep their
// informer caches warm (the pipeline is built before the election), so a new leader reconciles at once.
// lead's context is cancelled as soon as the lease cannot be renewed, so that a replica that lost the
// lease stops writing before another one can acquire it (renew deadline < lease duration).
//
// One term's lead has returned before the next election starts, so two terms never run in one
// process; on shutdown the Lease is released only after the last term's lead returned, so the next
// leader starts after this one's last provider write.
func runElected(ctx context.Context, cfg config.Config, client *kube.Client, getenv func(string) string, log *slog.Logger,
	setLeader func(bool), lead func(context.Context)) {
	namespace := cfg.LeaderElectNamespace
	if namespace == "" {
		namespace = getenv("POD_NAMESPACE")
	}
	if namespace == "" {
		namespace = "default"
	}
	runElectedOn(ctx, cfg, newRESTLeases(client, namespace, cfg.LeaderElectLeaseName),
		namespace+"/"+cfg.LeaderElectLeaseName, replicaIdentity(), log, setLeader, lead)
}

// runElectedOn is runElected on a given Lease client (of the Lease called name, namespace/name) and
// identity.
func runElectedOn(ctx context.Context, cfg config.Config, leases leaseClient, name, identity string, log *slog.Logger,
	setLeader func(bool), lead func(context.Context)) {
	watch := newLeaseWatch(leases, identity, cfg.LeaderElectLeaseDuration, cfg.LeaderElectRenewDeadline)
	elector := &leaseElector{
		leases: watch, name: name, identity: identity, leaseDuration: cfg.LeaderElectLeaseDuration,
		renewDeadline: cfg.LeaderElectRenewDeadline, retryPeriod: cfg.LeaderElectRetryPeriod, now: time.Now, log: log,
		onNewLeader: func(id string) {
			if id != identity {
				log.Info("Following the leader", "leader", id)
			}
		},
	}
	log.Info("Leader election on", "lease", name, "identity", identity)
	setLeader(false)
	for ctx.Err() == nil && elector.acquire(ctx) {
		termCtx, endTerm := context.WithCancel(ctx)
		termDone := make(chan struct{})
		go func() {
			defer close(termDone)
			runTerm(termCtx, endTerm, watch, identity, log, setLeader, lead)
		}()
		elector.renew(termCtx)
		endTerm()
		<-termDone
		setLeader(false)
		log.Info("Stopped leading", "identity", identity)
		elector.release()
	}
}

// runTerm runs lead for one term, after waiting out the lease of a holder this replica saw renew
// less than a lease duration ago (the Lease was deleted or overwritten under it).
func runTerm(termCtx context.Context, endTerm func(), watch *leaseWatch, identity string, log *slog.Logger,
	setLeader func(bool), lead func(context.Context)) {
	wait := watch.startTerm(endTerm)
	defer watch.stopTerm()
	if wait > 0 {
		log.Info("Acquired the Lease; waiting for the previous holder's lease to run out before leading",
			"identity", identity, "wait", wait.Round(time.Millisecond))
		select {
		case <-termCtx.Done():
			return
		case <-time.After(wait):
		}
	}
	log.Info("Became the leader", "identity", identity)
	setLeader(true)
	lead(controller.WithWriteFence(termCtx, watch.fresh))
}

// replicaIdentity is the hostname (the pod name) plus a random suffix, so two processes on one host
// are told apart.
func replicaIdentity() string {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return host + "_" + hex.EncodeToString(b)
}
