package cloudflare

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/pacing"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// CloudflareFlags are --provider=cloudflare's settings, with external-dns's flag names. The
// credentials come from the environment, as with external-dns (CF_API_TOKEN, or CF_API_KEY and
// CF_API_EMAIL; CLOUDFLARE_BASE_URL for another API endpoint). --zone-id-filter and --domain-filter
// are shared by every provider (provider.Env).
type CloudflareFlags struct {
	CloudflareProxied                             bool
	CloudflareDNSRecordsPerPage                   int
	CloudflareRecordComment                       string
	CloudflareRegionKey                           string
	CloudflareRegionalServices                    bool
	CloudflareCustomHostnames                     bool
	CloudflareCustomHostnamesMinTLSVersion        string
	CloudflareCustomHostnamesCertificateAuthority string
	// CloudflareBatchChangeSize and CloudflareBatchChangeInterval are external-dns's generic
	// --batch-change-size and --batch-change-interval, which only its Cloudflare provider reads.
	CloudflareBatchChangeSize     int
	CloudflareBatchChangeInterval time.Duration
	CloudflareRequestsPerSecond   float64
}

// Kind is --provider=cloudflare.
func (s *CloudflareFlags) Kind() provider.Kind {
	return provider.Kind{
		Name: "cloudflare", Summary: "Cloudflare DNS",
		// cloudflare/ and the legacy full annotation keys under any prefix, which adjust.go renames.
		Properties: []string{"cloudflare/", "*/cloudflare-proxied", "*/cloudflare-record-comment", "*/cloudflare-tags",
			"*/cloudflare-region-key", "*/cloudflare-custom-hostname"},
		Defaults: func() {
			*s = CloudflareFlags{CloudflareDNSRecordsPerPage: DefaultRecordsPerPage,
				CloudflareCustomHostnamesMinTLSVersion: "1.0", CloudflareCustomHostnamesCertificateAuthority: "none",
				CloudflareBatchChangeSize: DefaultBatchChangeSize, CloudflareBatchChangeInterval: time.Second,
				CloudflareRequestsPerSecond: DefaultRequestsPerSecond}
		},
		Flags: s.bind,
		Check: s.check,
		// One view is fine (the external view of a split horizon: --view-provider=external=cloudflare).
		NoViews: "one Cloudflare account (CF_API_TOKEN) holds one copy of its zones, so two views on it over the same zones would overwrite each other's records; publish one view there",
		New:     s.start,
	}
}

func (s *CloudflareFlags) bind(fs *flag.FlagSet) {
	fs.BoolVar(&s.CloudflareProxied, "cloudflare-proxied", s.CloudflareProxied, "proxy A, AAAA and CNAME records through Cloudflare (per record: the cloudflare-proxied annotation)")
	fs.IntVar(&s.CloudflareDNSRecordsPerPage, "cloudflare-dns-records-per-page", s.CloudflareDNSRecordsPerPage, "DNS records per page when listing a zone (at most 5000)")
	fs.StringVar(&s.CloudflareRecordComment, "cloudflare-record-comment", s.CloudflareRecordComment, "comment of every record (per record: the cloudflare-record-comment annotation)")
	fs.StringVar(&s.CloudflareRegionKey, "cloudflare-region-key", s.CloudflareRegionKey, "default region key of the regional hostnames of A, AAAA and CNAME names (per record: the cloudflare-region-key annotation); switches Regional Services on")
	fs.BoolVar(&s.CloudflareRegionalServices, "cloudflare-regional-services", s.CloudflareRegionalServices, "keep a regional hostname (Regional Services) for each A, AAAA and CNAME name that has a region key")
	fs.BoolVar(&s.CloudflareCustomHostnames, "cloudflare-custom-hostnames", s.CloudflareCustomHostnames, "keep the custom hostnames (Cloudflare for SaaS) the cloudflare-custom-hostname annotation names, with the record as their origin")
	fs.StringVar(&s.CloudflareCustomHostnamesMinTLSVersion, "cloudflare-custom-hostnames-min-tls-version", s.CloudflareCustomHostnamesMinTLSVersion, "minimum TLS version of new custom hostnames: 1.0, 1.1, 1.2 or 1.3")
	fs.StringVar(&s.CloudflareCustomHostnamesCertificateAuthority, "cloudflare-custom-hostnames-certificate-authority", s.CloudflareCustomHostnamesCertificateAuthority, "certificate authority of new custom hostnames: google, ssl_com, lets_encrypt, or none (the API's choice)")
	fs.IntVar(&s.CloudflareBatchChangeSize, "batch-change-size", s.CloudflareBatchChangeSize, "record changes per Cloudflare batch request (--provider=cloudflare; other providers batch by their own flags)")
	fs.DurationVar(&s.CloudflareBatchChangeInterval, "batch-change-interval", s.CloudflareBatchChangeInterval, "pause between two Cloudflare batch requests of one sync (--provider=cloudflare)")
	fs.Float64Var(&s.CloudflareRequestsPerSecond, "cloudflare-requests-per-second", s.CloudflareRequestsPerSecond, "Cloudflare API budget of this process per account (Cloudflare allows 1200 per 5 minutes); lowered on HTTP 429")
}

// check refuses what is not implemented, naming the flag, and values out of range.
func (s *CloudflareFlags) check() []error {
	var errs []error
	if !slices.Contains([]string{"1.0", "1.1", "1.2", "1.3"}, s.CloudflareCustomHostnamesMinTLSVersion) {
		errs = append(errs, fmt.Errorf("--cloudflare-custom-hostnames-min-tls-version=%s: must be 1.0, 1.1, 1.2 or 1.3", s.CloudflareCustomHostnamesMinTLSVersion))
	} else if s.CloudflareCustomHostnamesMinTLSVersion != "1.0" && !s.CloudflareCustomHostnames {
		errs = append(errs, fmt.Errorf("--cloudflare-custom-hostnames-min-tls-version=%s needs --cloudflare-custom-hostnames", s.CloudflareCustomHostnamesMinTLSVersion))
	}
	if !slices.Contains([]string{"google", "ssl_com", "lets_encrypt", "none"}, s.CloudflareCustomHostnamesCertificateAuthority) {
		errs = append(errs, fmt.Errorf("--cloudflare-custom-hostnames-certificate-authority=%s: must be google, ssl_com, lets_encrypt or none", s.CloudflareCustomHostnamesCertificateAuthority))
	} else if s.CloudflareCustomHostnamesCertificateAuthority != "none" && !s.CloudflareCustomHostnames {
		errs = append(errs, fmt.Errorf("--cloudflare-custom-hostnames-certificate-authority=%s needs --cloudflare-custom-hostnames", s.CloudflareCustomHostnamesCertificateAuthority))
	}
	if s.CloudflareDNSRecordsPerPage < 1 || s.CloudflareDNSRecordsPerPage > MaxRecordsPerPage {
		errs = append(errs, fmt.Errorf("--cloudflare-dns-records-per-page=%d: must be from 1 to %d", s.CloudflareDNSRecordsPerPage, MaxRecordsPerPage))
	}
	if s.CloudflareBatchChangeSize < 1 {
		errs = append(errs, fmt.Errorf("--batch-change-size=%d: must be at least 1", s.CloudflareBatchChangeSize))
	}
	if s.CloudflareBatchChangeInterval < 0 {
		errs = append(errs, errors.New("--batch-change-interval: must not be negative"))
	}
	if s.CloudflareRequestsPerSecond <= 0 {
		errs = append(errs, fmt.Errorf("--cloudflare-requests-per-second=%g: must be above 0", s.CloudflareRequestsPerSecond))
	}
	return errs
}

func (s *CloudflareFlags) start(_ context.Context, env provider.Env) (func(provider.View) (provider.Provider, error), error) {
	metrics, _ := env.Metrics.(pacing.Metrics)
	// One budget per account (credentials and API endpoint), shared by every zone and instance.
	accounts := newAccounts(s.CloudflareRequestsPerSecond, metrics)
	return func(provider.View) (provider.Provider, error) {
		p, err := New(Config{
			Getenv: env.Getenv, DomainFilter: env.DomainFilter, ZoneIDFilter: env.ZoneIDFilter,
			Proxied: s.CloudflareProxied, RecordsPerPage: s.CloudflareDNSRecordsPerPage, Comment: s.CloudflareRecordComment,
			RegionalServices: s.CloudflareRegionalServices, RegionKey: s.CloudflareRegionKey,
			CustomHostnames:                     s.CloudflareCustomHostnames,
			CustomHostnamesMinTLSVersion:        s.CloudflareCustomHostnamesMinTLSVersion,
			CustomHostnamesCertificateAuthority: s.CloudflareCustomHostnamesCertificateAuthority,
			BatchChangeSize:                     s.CloudflareBatchChangeSize, BatchChangeInterval: s.CloudflareBatchChangeInterval,
			Accounts: accounts, Logger: env.Log,
		})
		if err != nil {
			return nil, fmt.Errorf("--provider=cloudflare: %w", err)
		}
		return p, nil
	}, nil
}
