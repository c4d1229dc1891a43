package aws

import (
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/pacing"
)

// Defaults, as in external-dns.
const (
	DefaultBatchChangeSize       = 1000
	DefaultBatchChangeSizeBytes  = 32000
	DefaultBatchChangeSizeValues = 1000
	DefaultBatchChangeInterval   = time.Second
	DefaultAPIRetries            = 3
	// DefaultRequestsPerSecond is Route 53's quota: 5 requests per second per account, shared by every
	// client of the account.
	DefaultRequestsPerSecond = 5
	// DefaultTTL is written for a record without a TTL, and is what external-dns shows for an alias.
	DefaultTTL = 300
)

// Config configures the provider; each field mirrors an external-dns flag where one exists.
type Config struct {
	// DomainFilter (--domain-filter): a zone is managed when its name lies at or below one of these
	// domains, or contains one. Empty: every zone the other filters keep.
	DomainFilter []string
	// ZoneIDFilter (--zone-id-filter): keep only these hosted zone ids (bare or /hostedzone/ form).
	ZoneIDFilter []string
	// ZoneType (--aws-zone-type): "public", "private", or "" / "both" for any.
	ZoneType string
	// ZoneTags (--aws-zone-tags): "key=value" or "key"; a zone is kept when it has every tag.
	ZoneTags []string
	// ZonesCacheDuration (--aws-zones-cache-duration): how long the zone list is trusted. Once it is
	// that old, the next resync (CheckZones) fetches it again — one ListHostedZones, whose counts also
	// serve as that resync's probe — and the zones that appeared are listed. With 0 the zone list is
	// fetched at start, at each full relisting and after a failed run; an event never fetches it.
	ZonesCacheDuration time.Duration

	// BatchChangeSize, BatchChangeSizeBytes, BatchChangeSizeValues bound one ChangeResourceRecordSets
	// (--aws-batch-change-size, -bytes, -values; an UPSERT counts twice, as Route 53 counts it).
	BatchChangeSize       int
	BatchChangeSizeBytes  int
	BatchChangeSizeValues int
	// BatchChangeInterval (--aws-batch-change-interval) is waited between two batches of one
	// ApplyChanges when set. Zero (zonekeeper's default; external-dns waits 1s): no fixed pause, the
	// account's adaptive limiter alone paces the batches.
	BatchChangeInterval time.Duration

	// EvaluateTargetHealth (--aws-evaluate-target-health, default true: the caller passes the flag) is
	// the EvaluateTargetHealth of an alias without the aws-evaluate-target-health annotation.
	EvaluateTargetHealth bool
	// PreferCNAME (--aws-prefer-cname) keeps CNAMEs to AWS load balancers as CNAMEs; an explicit alias
	// annotation still makes an alias.
	PreferCNAME bool

	// Region (--aws-region, else AWS_REGION, else us-east-1: Route 53 is global and signs for us-east-1).
	Region string
	// Profile (--aws-profile) selects a shared config/credentials profile; empty: the SDK's default chain.
	Profile string
	// Profiles (--aws-profile, repeated) manage the hosted zones of several accounts in one process, as
	// external-dns does: each profile gets its own client and rate limiter, its zones are listed with
	// its credentials, and changes to a zone go through the profile that listed it. When set, Profile
	// is ignored.
	Profiles []string
	// AssumeRole and AssumeRoleExternalID (--aws-assume-role, --aws-assume-role-external-id): STS
	// AssumeRole on top of the base credentials.
	AssumeRole           string
	AssumeRoleExternalID string
	// APIRetries (--aws-api-retries): attempts per API call in the SDK's standard retryer.
	APIRetries int
	// Endpoint, when set, is the base URL of Route 53 and of STS (LocalStack-style setups, tests). The
	// SDK's AWS_ENDPOINT_URL_ROUTE_53 / AWS_ENDPOINT_URL_STS / AWS_ENDPOINT_URL work without it.
	Endpoint string

	// RequestsPerSecond is the starting and highest rate of the client-side limiter (DefaultRequestsPerSecond
	// when zero). Limiter, when set, is used instead: share one Limiter between providers that use the
	// same AWS account, since Route 53's quota is per account.
	RequestsPerSecond float64
	Limiter           *Limiter
	// Pool, when set and Limiter is not, gives each profile the bucket of its account key (profile,
	// role, endpoint), shared with every other provider instance built from the same pool.
	Pool *pacing.Pool
	// Metrics, when set, counts every API attempt by operation and hosted zone.
	Metrics pacing.Metrics
	// RetryMaxBackoff caps the SDK retryer's jittered backoff (the SDK's 20 s when zero); tests shorten it.
	RetryMaxBackoff time.Duration

	// Logger receives the provider's log lines; nil discards them.
	Logger *slog.Logger
}

// String describes the configuration; it holds no secret (credentials come from the SDK's chain).
func (c Config) String() string {
	return fmt.Sprintf("aws{domains=%s zone-ids=%s zone-type=%s zone-tags=%s region=%s profile=%s assume-role=%s endpoint=%s batch=%d/%dB/%dv interval=%s prefer-cname=%t evaluate-target-health=%t}",
		strings.Join(c.DomainFilter, ","), strings.Join(c.ZoneIDFilter, ","), c.ZoneType, strings.Join(c.ZoneTags, ","),
		c.Region, c.Profile, c.AssumeRole, c.Endpoint, c.BatchChangeSize, c.BatchChangeSizeBytes, c.BatchChangeSizeValues,
		c.BatchChangeInterval, c.PreferCNAME, c.EvaluateTargetHealth)
}

// withDefaults fills zero fields and checks the rest.
func (c Config) withDefaults() (Config, error) {
	if c.BatchChangeSize <= 0 {
		c.BatchChangeSize = DefaultBatchChangeSize
	}
	if c.BatchChangeSizeBytes <= 0 {
		c.BatchChangeSizeBytes = DefaultBatchChangeSizeBytes
	}
	if c.BatchChangeSizeValues <= 0 {
		c.BatchChangeSizeValues = DefaultBatchChangeSizeValues
	}
	if c.BatchChangeInterval < 0 {
		return c, fmt.Errorf("--aws-batch-change-interval: %s is negative", c.BatchChangeInterval)
	}
	if c.APIRetries <= 0 {
		c.APIRetries = DefaultAPIRetries
	}
	if c.RequestsPerSecond <= 0 {
		c.RequestsPerSecond = DefaultRequestsPerSecond
	}
	switch strings.ToLower(c.ZoneType) {
	case "", "both", "any":
		c.ZoneType = ""
	case "public", "private":
		c.ZoneType = strings.ToLower(c.ZoneType)
	default:
		return c, fmt.Errorf("--aws-zone-type: %q is not one of public, private, both", c.ZoneType)
	}
	for _, t := range c.ZoneTags {
		if k, _, _ := strings.Cut(t, "="); strings.TrimSpace(k) == "" {
			return c, fmt.Errorf("--aws-zone-tags: %q has no key (want key=value or key)", t)
		}
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c, nil
}

// accountKey names the account a profile's calls are charged to, for the shared rate limiter: the
// same profile and role at the same endpoint is one account. It holds no secret.
func (c Config) accountKey() string {
	return fmt.Sprintf("profile=%s role=%s endpoint=%s", c.Profile, c.AssumeRole, c.Endpoint)
}
