package events

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// servicesByName finds any Service by its resource label, as the service source would.
type servicesByName struct{}

func (servicesByName) LookupObject(kind, namespace, name string) (runtime.Object, bool) {
	return &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, UID: types.UID("uid-" + name)},
	}, true
}

// Every Event recorded before Stop reaches the API server: --once records them in its last reconcile
// and stops right after (they were dropped: client-go's Shutdown cancels the queue).
func TestStopWritesTheQueuedEvents(t *testing.T) {
	api := testbed.StartKubeAPIServer(t)
	kube := api.Client(t)
	n, err := New(api.Config, servicesByName{}, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	const objects = 40
	for i := range objects {
		n.Published(fmt.Sprintf("service/default/svc%02d", i), []*endpoint.Endpoint{
			endpoint.New(fmt.Sprintf("svc%02d.example.com", i), endpoint.RecordTypeA, "192.0.2.1")})
	}
	start := time.Now()
	n.Stop()
	t.Logf("Stop took %s", time.Since(start))
	list, err := kube.CoreV1().Events("default").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != objects {
		t.Errorf("%d Events written of %d recorded before Stop", len(list.Items), objects)
	}
}
