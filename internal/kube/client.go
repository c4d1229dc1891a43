package kube

import (
	"fmt"
	"net/http"

	authorizationv1 "k8s.io/api/authorization/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
)

// Client is one REST client per group version zonekeeper uses, over one scheme (NewScheme).
type Client struct {
	Scheme        *runtime.Scheme
	Core          rest.Interface
	Networking    rest.Interface
	Discovery     rest.Interface
	Coordination  rest.Interface
	Authorization rest.Interface
}

// NewForConfig makes the clients from rc (address, credentials, user agent, rate limits). They share
// one HTTP client and one rate limiter, as a typed clientset's group clients do: --kube-api-qps bounds
// the process, not each group version.
func NewForConfig(rc *rest.Config) (*Client, error) {
	s := NewScheme()
	c := &Client{Scheme: s}
	cfg := rest.CopyConfig(rc)
	if cfg.RateLimiter == nil && cfg.QPS > 0 {
		if cfg.Burst <= 0 {
			return nil, fmt.Errorf("kubernetes client: burst must be greater than 0 when QPS is set")
		}
		cfg.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(cfg.QPS, cfg.Burst)
	}
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	for _, g := range []struct {
		client  *rest.Interface
		gv      schema.GroupVersion
		apiPath string
	}{
		{&c.Core, corev1.SchemeGroupVersion, "/api"},
		{&c.Networking, networkingv1.SchemeGroupVersion, "/apis"},
		{&c.Discovery, discoveryv1.SchemeGroupVersion, "/apis"},
		{&c.Coordination, coordinationv1.SchemeGroupVersion, "/apis"},
		{&c.Authorization, authorizationv1.SchemeGroupVersion, "/apis"},
	} {
		client, err := forGroupVersion(cfg, httpClient, s, g.gv, g.apiPath)
		if err != nil {
			return nil, err
		}
		*g.client = client
	}
	return c, nil
}

// ForGroupVersion is a REST client of one group version whose objects are the Go types in s (decoded
// without conversion: the server's version is the type's). apiPath is "/api" for core/v1, else "/apis".
func ForGroupVersion(rc *rest.Config, s *runtime.Scheme, gv schema.GroupVersion, apiPath string) (*rest.RESTClient, error) {
	httpClient, err := rest.HTTPClientFor(rc)
	if err != nil {
		return nil, err
	}
	return forGroupVersion(rc, httpClient, s, gv, apiPath)
}

func forGroupVersion(rc *rest.Config, httpClient *http.Client, s *runtime.Scheme, gv schema.GroupVersion, apiPath string) (*rest.RESTClient, error) {
	cfg := rest.CopyConfig(rc)
	cfg.GroupVersion = &gv
	cfg.APIPath = apiPath
	cfg.NegotiatedSerializer = serializer.NewCodecFactory(s).WithoutConversion()
	if cfg.UserAgent == "" {
		cfg.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	return rest.RESTClientForConfigAndClient(cfg, httpClient)
}
