package controller

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	networkinglisters "k8s.io/client-go/listers/networking/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/provider/aws"
	"github.com/zonekeeper/zonekeeper/internal/registry/txt"
	"github.com/zonekeeper/zonekeeper/internal/route53emu"
	"github.com/zonekeeper/zonekeeper/internal/source"
)

// newRoute53World is the app's stack for the tests of the registry's cache over time: the Ingress
// source over a store, the TXT registry with cache interval interval over the aws provider inside
// provider.OwnPropertiesOnly, route53emu through the SDK, and a controller resyncing on interval that
// logs to log. wrap, if not nil, wraps the aws provider first (to count its listings). Ingresses web
// (192.0.2.1) and api (192.0.2.2) are in the store; nothing has run yet.
func newRoute53World(t *testing.T, interval time.Duration, wrap func(provider.Provider) provider.Provider, log *slog.Logger) (*propertyWorld, *listingCountingObjects) {
	t.Helper()
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": "AKIDWORLD", "AWS_SECRET_ACCESS_KEY": "world-secret", "AWS_REGION": "us-east-1",
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_CONFIG_FILE": "/nonexistent", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent",
		"AWS_PROFILE": "", "AWS_SESSION_TOKEN": "", "AWS_ENDPOINT_URL": "", "AWS_ENDPOINT_URL_ROUTE_53": "", "AWS_ENDPOINT_URL_STS": ""} {
		t.Setenv(k, v)
	}
	emu := route53emu.New(route53emu.Options{})
	hs := httptest.NewServer(emu)
	t.Cleanup(hs.Close)
	if _, err := emu.Seed(route53emu.Seed{Zones: []route53emu.SeedZone{{Name: "example.com"}}}); err != nil {
		t.Fatal(err)
	}
	r53, err := aws.New(context.Background(), aws.Config{Endpoint: hs.URL, RequestsPerSecond: 10000, RetryMaxBackoff: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var p provider.Provider = r53
	if wrap != nil {
		p = wrap(p)
	}
	reg, err := txt.New(provider.OwnPropertiesOnly(p, []string{"aws/", provider.AliasProperty}), txt.Config{OwnerID: "test", CacheInterval: interval})
	if err != nil {
		t.Fatal(err)
	}
	store := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	ing, err := source.NewIngressFromLister(networkinglisters.NewIngressLister(store), source.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	counting := &listingCountingObjects{ObjectSource: source.PostProcess(ing, source.PostProcessConfig{}).(source.ObjectSource)}
	w := &propertyWorld{t: t, store: store, reg: reg}
	w.c = New(counting, reg, Settings{OwnerID: "test", Policy: plan.PolicySync, Interval: interval}, log)
	w.c.sourceCounted.Store(true)
	w.setIngress("web", "web.example.com", "192.0.2.1")
	w.setIngress("api", "api.example.com", "192.0.2.2")
	return w, counting
}
