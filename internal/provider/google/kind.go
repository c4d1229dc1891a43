package google

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/pacing"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// GoogleFlags are --provider=google's settings, with external-dns's flag names and defaults. The
// credentials are Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS, or the workload's
// service account on GCP and GKE Workload Identity); CLOUDSDK_API_ENDPOINT_OVERRIDES_DNS points the
// provider at another API endpoint (an emulator). --zone-id-filter and --domain-filter are shared by
// every provider (provider.Env).
type GoogleFlags struct {
	GoogleProject             string
	GoogleZoneVisibility      string
	GoogleBatchChangeSize     int
	GoogleBatchChangeInterval time.Duration
	// GoogleRequestsPerSecond is this process's share of the project's Cloud DNS request budget.
	GoogleRequestsPerSecond float64
}

// Kind is --provider=google.
func (s *GoogleFlags) Kind() provider.Kind {
	return provider.Kind{
		Name: "google", Summary: "Google Cloud DNS",
		Defaults: func() {
			*s = GoogleFlags{GoogleBatchChangeSize: DefaultBatchChangeSize, GoogleBatchChangeInterval: DefaultBatchChangeInterval,
				GoogleRequestsPerSecond: DefaultRequestsPerSecond}
		},
		Flags:   s.bind,
		Check:   s.check,
		NoViews: "views are not supported yet: one Google Cloud project serves one view of its zones",
		New:     s.start,
	}
}

func (s *GoogleFlags) bind(fs *flag.FlagSet) {
	fs.StringVar(&s.GoogleProject, "google-project", s.GoogleProject, "Google Cloud project of the zones; required off GCP (on GCP and GKE it is read from the metadata server)")
	fs.StringVar(&s.GoogleZoneVisibility, "google-zone-visibility", s.GoogleZoneVisibility, "manage only zones of this visibility: public or private (default: both)")
	fs.IntVar(&s.GoogleBatchChangeSize, "google-batch-change-size", s.GoogleBatchChangeSize, "record sets added or deleted per Cloud DNS change (one change per zone and batch)")
	fs.DurationVar(&s.GoogleBatchChangeInterval, "google-batch-change-interval", s.GoogleBatchChangeInterval, "pause after each Cloud DNS change of a sync")
	fs.Float64Var(&s.GoogleRequestsPerSecond, "google-requests-per-second", s.GoogleRequestsPerSecond, "Cloud DNS API budget of this process per project (Google shows the quota in the project's console); lowered on HTTP 429")
}

// check refuses values out of range, naming the flag.
func (s *GoogleFlags) check() []error {
	var errs []error
	switch s.GoogleZoneVisibility {
	case "", VisibilityPublic, VisibilityPrivate:
	default:
		errs = append(errs, fmt.Errorf("--google-zone-visibility=%s: must be public, private or empty (both)", s.GoogleZoneVisibility))
	}
	if s.GoogleBatchChangeSize < 1 {
		errs = append(errs, fmt.Errorf("--google-batch-change-size=%d: must be at least 1", s.GoogleBatchChangeSize))
	}
	if s.GoogleRequestsPerSecond <= 0 {
		errs = append(errs, fmt.Errorf("--google-requests-per-second=%g: must be above 0", s.GoogleRequestsPerSecond))
	}
	if s.GoogleBatchChangeInterval < 0 {
		errs = append(errs, errors.New("--google-batch-change-interval: must not be negative"))
	}
	return errs
}

func (s *GoogleFlags) start(ctx context.Context, env provider.Env) (func(provider.View) (provider.Provider, error), error) {
	// The process's metrics (internal/metrics): every attempt by zone and call, 429s, the rate.
	metrics, _ := env.Metrics.(pacing.Metrics)
	// One request budget per project, shared by every zone and instance.
	budgets := newBudgets(s.GoogleRequestsPerSecond, metrics)
	return func(provider.View) (provider.Provider, error) {
		p, err := New(ctx, Config{
			Project: s.GoogleProject, ZoneVisibility: s.GoogleZoneVisibility,
			BatchChangeSize: s.GoogleBatchChangeSize, BatchChangeInterval: s.GoogleBatchChangeInterval,
			DomainFilter: env.DomainFilter, ZoneIDFilter: env.ZoneIDFilter,
			Getenv: env.Getenv, Budgets: budgets, Logger: env.Log,
		})
		if err != nil {
			return nil, fmt.Errorf("--provider=google: %w", err)
		}
		return p, nil
	}, nil
}
