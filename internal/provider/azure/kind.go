package azure

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/pacing"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// DefaultConfigFile is external-dns's --azure-config-file default (AKS's node file).
const DefaultConfigFile = "/etc/kubernetes/azure.json"

// AzureFlags are the settings of --provider=azure and --provider=azure-private-dns, which external-dns
// gives the same flags, with its names and defaults.
type AzureFlags struct {
	AzureConfigFile                   string
	AzureResourceGroup                string
	AzureSubscriptionID               string
	AzureUserAssignedIdentityClientID string
	AzureZonesCacheDuration           time.Duration
	AzureMaxRetriesCount              int
	// AzureReadsPerSecond and AzureWritesPerSecond are this process's share of the account's
	// request budget (writes: PUT, PATCH and DELETE, each class with its own bucket).
	AzureReadsPerSecond, AzureWritesPerSecond float64
}

// Kinds are --provider=azure (Azure DNS) and --provider=azure-private-dns (Azure Private DNS); the
// first binds the flags both read.
func (s *AzureFlags) Kinds() []provider.Kind {
	return []provider.Kind{s.kind("azure", "Azure DNS", false), s.kind("azure-private-dns", "Azure Private DNS", true)}
}

func (s *AzureFlags) kind(name, summary string, private bool) provider.Kind {
	k := provider.Kind{
		Name: name, Summary: summary,
		Defaults: func() {
			*s = AzureFlags{AzureConfigFile: DefaultConfigFile, AzureMaxRetriesCount: 3,
				AzureReadsPerSecond: ReadsPerSecond, AzureWritesPerSecond: WritesPerSecond}
		},
		Flags:   func(*flag.FlagSet) {},
		NoViews: "views are not supported yet: one resource group serves one view of its zones",
		New: func(ctx context.Context, env provider.Env) (func(provider.View) (provider.Provider, error), error) {
			return s.start(name, private, env)
		},
	}
	if !private {
		k.Flags, k.Check = s.bind, s.check
	}
	return k
}

func (s *AzureFlags) bind(fs *flag.FlagSet) {
	fs.StringVar(&s.AzureConfigFile, "azure-config-file", s.AzureConfigFile, "azure.json with the subscription, resource group, cloud and credentials (external-dns's format)")
	fs.StringVar(&s.AzureResourceGroup, "azure-resource-group", s.AzureResourceGroup, "resource group of the zones; replaces the file's resourceGroup")
	fs.StringVar(&s.AzureSubscriptionID, "azure-subscription-id", s.AzureSubscriptionID, "subscription of the zones; replaces the file's subscriptionId")
	fs.StringVar(&s.AzureUserAssignedIdentityClientID, "azure-user-assigned-identity-client-id", s.AzureUserAssignedIdentityClientID, "client id of the user-assigned managed identity; replaces the file's userAssignedIdentityID")
	fs.DurationVar(&s.AzureZonesCacheDuration, "azure-zones-cache-duration", s.AzureZonesCacheDuration, "reuse the zone list this long (0: list on every sync)")
	fs.IntVar(&s.AzureMaxRetriesCount, "azure-maxretries-count", s.AzureMaxRetriesCount, "retries of a throttled (429, after Retry-After) or failed (5xx) Azure call; 0: none")
	fs.Float64Var(&s.AzureReadsPerSecond, "azure-reads-per-second", s.AzureReadsPerSecond, "Azure Resource Manager read budget of this process per subscription and principal (ARM allows 25/s after a burst of 250); lowered on HTTP 429")
	fs.Float64Var(&s.AzureWritesPerSecond, "azure-writes-per-second", s.AzureWritesPerSecond, "Azure Resource Manager write and delete budget of this process, each (ARM allows 10/s after a burst of 200); lowered on HTTP 429")
}

// check refuses values out of range, naming the flag.
func (s *AzureFlags) check() []error {
	var errs []error
	if s.AzureMaxRetriesCount < 0 {
		errs = append(errs, fmt.Errorf("--azure-maxretries-count=%d: must not be negative", s.AzureMaxRetriesCount))
	}
	if s.AzureZonesCacheDuration < 0 {
		errs = append(errs, fmt.Errorf("--azure-zones-cache-duration: must not be negative"))
	}
	if s.AzureReadsPerSecond <= 0 {
		errs = append(errs, fmt.Errorf("--azure-reads-per-second=%g: must be above 0", s.AzureReadsPerSecond))
	}
	if s.AzureWritesPerSecond <= 0 {
		errs = append(errs, fmt.Errorf("--azure-writes-per-second=%g: must be above 0", s.AzureWritesPerSecond))
	}
	if s.AzureConfigFile == "" {
		errs = append(errs, fmt.Errorf("--azure-config-file: must name the azure.json file"))
	}
	return errs
}

func (s *AzureFlags) start(name string, private bool, env provider.Env) (func(provider.View) (provider.Provider, error), error) {
	if env.TLS.CertFile != "" || env.TLS.KeyFile != "" {
		return nil, fmt.Errorf("--provider=%s: --tls-client-cert and --tls-client-cert-key are not used with Azure (its logins are in azure.json)", name)
	}
	file, err := LoadConfig(s.AzureConfigFile, Overrides{SubscriptionID: s.AzureSubscriptionID, ResourceGroup: s.AzureResourceGroup,
		UserAssignedIdentityClientID: s.AzureUserAssignedIdentityClientID})
	if err != nil {
		return nil, fmt.Errorf("--provider=%s: %w", name, err)
	}
	df, err := plan.NewDomainFilter(env.DomainFilter, nil, "", "")
	if err != nil {
		return nil, err
	}
	// The process's metrics (internal/metrics): every attempt by zone and call, 429s, the rates. One
	// pool of request budgets for the kind: one read, write and delete bucket per account.
	metrics, _ := env.Metrics.(pacing.Metrics)
	pool := pacing.NewPool(name, metrics)
	return func(provider.View) (provider.Provider, error) {
		p, err := New(Config{Private: private, File: file, DomainFilter: df, ZoneIDFilter: env.ZoneIDFilter, MaxRetries: s.AzureMaxRetriesCount, ZonesCacheDuration: s.AzureZonesCacheDuration,
			CAFile: env.TLS.CAFile, Pool: pool, Metrics: metrics,
			Rates: Rates{ReadsPerSecond: s.AzureReadsPerSecond, WritesPerSecond: s.AzureWritesPerSecond, DeletesPerSecond: s.AzureWritesPerSecond}})
		if err != nil {
			return nil, fmt.Errorf("--provider=%s: %w", name, err)
		}
		return p, nil
	}, nil
}
