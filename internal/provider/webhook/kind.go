package webhook

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/pacing"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// WebhookFlags are --provider=webhook's settings, with external-dns's flag names. The read timeout is
// also the webhook server's (zonekeeper webhook), as in external-dns.
type WebhookFlags struct {
	WebhookProviderURL          string
	WebhookProviderReadTimeout  time.Duration
	WebhookProviderWriteTimeout time.Duration
}

// Kind is --provider=webhook: any external-dns webhook provider, at --webhook-provider-url.
func (s *WebhookFlags) Kind() provider.Kind {
	return provider.Kind{
		Name: "webhook", Summary: "a webhook provider at --webhook-provider-url",
		// As external-dns: only webhook/ properties (webhook-* annotations) and alias, which
		// external-dns keeps for every provider, reach the server.
		Properties: []string{"webhook/", provider.AliasProperty},
		Defaults: func() {
			*s = WebhookFlags{WebhookProviderURL: "http://localhost:8888", WebhookProviderReadTimeout: 5 * time.Second,
				WebhookProviderWriteTimeout: 10 * time.Second}
		},
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&s.WebhookProviderURL, "webhook-provider-url", s.WebhookProviderURL, "URL of the webhook provider (--provider=webhook)")
			fs.DurationVar(&s.WebhookProviderReadTimeout, "webhook-provider-read-timeout", s.WebhookProviderReadTimeout, "read timeout of webhook provider requests")
			fs.DurationVar(&s.WebhookProviderWriteTimeout, "webhook-provider-write-timeout", s.WebhookProviderWriteTimeout, "write timeout of webhook provider requests")
		},
		NoViews:         "views are not supported; the protocol has one URL, and a view needs a backend of its own",
		NoWebhookServer: "would serve a webhook provider through itself",
		New: func(_ context.Context, env provider.Env) (func(provider.View) (provider.Provider, error), error) {
			metrics, _ := env.Metrics.(Metrics)
			api, _ := env.Metrics.(pacing.Metrics)
			return func(provider.View) (provider.Provider, error) {
				p, err := New(Config{
					URL: s.WebhookProviderURL, ReadTimeout: s.WebhookProviderReadTimeout,
					WriteTimeout: s.WebhookProviderWriteTimeout, Metrics: metrics, APIMetrics: api, Logger: env.Log,
				})
				if err != nil {
					return nil, fmt.Errorf("--provider=webhook: %w", err)
				}
				return p, nil
			}, nil
		},
	}
}
