package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"os"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"

	"github.com/zonekeeper/zonekeeper/internal/config"
	"github.com/zonekeeper/zonekeeper/internal/controller"
)

// runElected runs lead whenever this replica holds the Lease, until ctx ends. Followers keep their
// informer caches warm (the pipeline is built before the election), so a new leader reconciles at once.
// lead's context is cancelled as soon as the lease cannot be renewed, so that a replica that lost the
// lease stops writing before another one can acquire it (renew deadline < lease duration).
//
// One term's lead must have returned before the next election starts: client-go cancels lead's context
// when renewal fails but does not wait for it, and a lead still finishing a provider write beside a new
// term's lead would be two reconcile loops in one process.
func runElected(ctx context.Context, cfg config.Config, kube kubernetes.Interface, getenv func(string) string, log *slog.Logger,
	setLeader func(bool), lead func(context.Context)) {
	namespace := cfg.LeaderElectNamespace
	if namespace == "" {
		namespace = getenv("POD_NAMESPACE")
	}
	if namespace == "" {
		namespace = "default"
	}
	identity := replicaIdentity()
	lock := newLeaseWatch(&resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: namespace, Name: cfg.LeaderElectLeaseName},
		Client:     kube.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: identity},
	}, cfg.LeaderElectLeaseDuration, cfg.LeaderElectRenewDeadline)
	log.Info("Leader election on", "lease", namespace+"/"+cfg.LeaderElectLeaseName, "identity", identity)
	setLeader(false)
	var leading sync.Mutex // held while lead runs: one term at a time
	for ctx.Err() == nil {
		leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
			Lock:            lock,
			LeaseDuration:   cfg.LeaderElectLeaseDuration,
			RenewDeadline:   cfg.LeaderElectRenewDeadline,
			RetryPeriod:     cfg.LeaderElectRetryPeriod,
			ReleaseOnCancel: true,
			Name:            cfg.LeaderElectLeaseName,
			Callbacks: leaderelection.LeaderCallbacks{
				OnStartedLeading: func(leadCtx context.Context) {
					// RunOrDie starts this in a goroutine and does not wait for it.
					leading.Lock()
					defer leading.Unlock()
					if leadCtx.Err() != nil {
						return // this term ended while the previous one's lead was finishing
					}
					termCtx, endTerm := context.WithCancel(leadCtx)
					defer endTerm()
					wait := lock.startTerm(endTerm)
					defer lock.stopTerm()
					if wait > 0 {
						// The Lease was deleted or overwritten while another replica held it.
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
					lead(controller.WithWriteFence(termCtx, lock.fresh))
				},
				OnStoppedLeading: func() {
					setLeader(false)
					log.Info("Stopped leading", "identity", identity)
				},
				OnNewLeader: func(id string) {
					if id != identity {
						log.Info("Following the leader", "leader", id)
					}
				},
			},
		})
	}
	leading.Lock() // the last term's lead has returned
	leading.Unlock()
}

// replicaIdentity is the hostname (the pod name) plus a random suffix, so two processes on one host
// are told apart.
func replicaIdentity() string {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return host + "_" + hex.EncodeToString(b)
}
