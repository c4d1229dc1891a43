package app

import (
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// electionClient is the client leader election reads and writes its Lease through. For now it is
// client-go's typed clientset, which the election (client-go's leaderelection) needs; the rest of the
// process uses internal/kube.
func electionClient(rc *rest.Config) (kubernetes.Interface, error) {
	return kubernetes.NewForConfig(rc)
}
