package gateway

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/gateway-api/apis/v1alpha2"

	"github.com/zonekeeper/zonekeeper/internal/kube"
	"github.com/zonekeeper/zonekeeper/internal/source"
)

// gatewayClients are REST clients of gateway.networking.k8s.io v1 and v1alpha2 over gateway-api's
// own Go types. gateway-api's generated clientset is not used: it imports client-go's discovery and
// with it every built-in API group (internal/kube).
type gatewayClients struct {
	v1, v1alpha2 rest.Interface
}

func newGatewayClients(rc *rest.Config) (*gatewayClients, error) {
	s := runtime.NewScheme()
	if err := gwv1.Install(s); err != nil {
		return nil, err
	}
	if err := v1alpha2.Install(s); err != nil {
		return nil, err
	}
	v1, err := kube.ForGroupVersion(rc, s, gwv1.SchemeGroupVersion, "/apis")
	if err != nil {
		return nil, err
	}
	alpha, err := kube.ForGroupVersion(rc, s, v1alpha2.SchemeGroupVersion, "/apis")
	if err != nil {
		return nil, err
	}
	return &gatewayClients{v1: v1, v1alpha2: alpha}, nil
}

// gwFactory shares one informer per Gateway API resource in one namespace, each with the namespace
// index and source.TrimObject as its transform, as gateway-api's generated informer factory did.
type gwFactory struct {
	*kube.Factory
	clients *gatewayClients
}

func newGWFactory(clients *gatewayClients, namespace string) *gwFactory {
	return &gwFactory{Factory: kube.NewFactory(nil, namespace, source.TrimObject), clients: clients}
}

// inf is the informer of resource, of version v1alpha2 if alpha, else v1; obj is an empty object of
// its Go type.
func (f *gwFactory) inf(alpha bool, resource string, obj runtime.Object) cache.SharedIndexInformer {
	client := f.clients.v1
	if alpha {
		client = f.clients.v1alpha2
	}
	return f.InformerFor(fmt.Sprintf("%T", obj), func(namespace string) cache.SharedIndexInformer {
		return kube.Informer(client, resource, namespace, obj, kube.NamespaceIndexers(), nil)
	})
}
