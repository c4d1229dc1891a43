package aws

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/flagvalue"
	"github.com/zonekeeper/zonekeeper/internal/pacing"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// AWSFlags are --provider=aws's settings, with external-dns's flag names. --zone-id-filter and
// --domain-filter are shared by every provider (provider.Env).
type AWSFlags struct {
	AWSZoneType              string
	AWSZoneTags              []string
	AWSZonesCacheDuration    time.Duration
	AWSBatchChangeSize       int
	AWSBatchChangeSizeBytes  int
	AWSBatchChangeSizeValues int
	AWSBatchChangeInterval   time.Duration
	AWSEvaluateTargetHealth  bool
	AWSPreferCNAME           bool
	AWSAPIRetries            int
	AWSRegion                string
	AWSProfiles              []string
	AWSAssumeRole            string
	AWSAssumeRoleExternalID  string
	AWSRequestsPerSecond     float64
}

// Kind is --provider=aws.
func (s *AWSFlags) Kind() provider.Kind {
	return provider.Kind{
		Name: "aws", Summary: "Route 53",
		// alias: a CNAME becomes an A (and AAAA) alias, or never does (false).
		Properties: []string{"aws/", provider.AliasProperty},
		Defaults: func() {
			*s = AWSFlags{AWSBatchChangeSize: 1000, AWSBatchChangeSizeBytes: 32000, AWSBatchChangeSizeValues: 1000,
				AWSEvaluateTargetHealth: true, AWSAPIRetries: 3, AWSRequestsPerSecond: 5}
		},
		Flags:   s.bind,
		NoViews: "views are not supported yet; Route 53's split horizon is a private and a public hosted zone of one name (--aws-zone-type)",
		New:     s.start,
	}
}

func (s *AWSFlags) bind(fs *flag.FlagSet) {
	fs.StringVar(&s.AWSZoneType, "aws-zone-type", s.AWSZoneType, "public, private, or empty for both")
	flagvalue.BindList(fs, &s.AWSZoneTags, "aws-zone-tags", "KEY=VALUE or KEY: only zones with every tag (repeatable)")
	fs.DurationVar(&s.AWSZonesCacheDuration, "aws-zones-cache-duration", s.AWSZonesCacheDuration, "how long the hosted zone list is trusted: the first resync after it aged fetches it again (0: at each full relisting)")
	fs.IntVar(&s.AWSBatchChangeSize, "aws-batch-change-size", s.AWSBatchChangeSize, "changes per ChangeResourceRecordSets (an UPSERT counts twice)")
	fs.IntVar(&s.AWSBatchChangeSizeBytes, "aws-batch-change-size-bytes", s.AWSBatchChangeSizeBytes, "characters of record data per ChangeResourceRecordSets")
	fs.IntVar(&s.AWSBatchChangeSizeValues, "aws-batch-change-size-values", s.AWSBatchChangeSizeValues, "record values per ChangeResourceRecordSets")
	fs.DurationVar(&s.AWSBatchChangeInterval, "aws-batch-change-interval", s.AWSBatchChangeInterval, "fixed pause between two batches of one sync (default none: the account's adaptive rate limiter paces them; external-dns waits 1s)")
	fs.BoolVar(&s.AWSEvaluateTargetHealth, "aws-evaluate-target-health", s.AWSEvaluateTargetHealth, "EvaluateTargetHealth of alias records (per record: the aws-evaluate-target-health annotation)")
	fs.BoolVar(&s.AWSPreferCNAME, "aws-prefer-cname", s.AWSPreferCNAME, "publish CNAMEs to AWS load balancers as CNAMEs, not ALIAS records")
	fs.IntVar(&s.AWSAPIRetries, "aws-api-retries", s.AWSAPIRetries, "attempts per Route 53 API call")
	fs.StringVar(&s.AWSRegion, "aws-region", s.AWSRegion, "AWS region for signing and STS (default $AWS_REGION, else us-east-1)")
	flagvalue.BindList(fs, &s.AWSProfiles, "aws-profile", "shared config/credentials profile (repeatable: the hosted zones of several accounts)")
	fs.StringVar(&s.AWSAssumeRole, "aws-assume-role", s.AWSAssumeRole, "IAM role ARN to assume on top of the base credentials")
	fs.StringVar(&s.AWSAssumeRoleExternalID, "aws-assume-role-external-id", s.AWSAssumeRoleExternalID, "external id for --aws-assume-role")
	fs.Float64Var(&s.AWSRequestsPerSecond, "aws-requests-per-second", s.AWSRequestsPerSecond, "Route 53 API budget of this process (AWS allows 5 per second per account); lowered on throttling")
}

func (s *AWSFlags) start(ctx context.Context, env provider.Env) (func(provider.View) (provider.Provider, error), error) {
	// Route 53's budget is per account: every instance draws from its account's bucket in one pool.
	m, _ := env.Metrics.(pacing.Metrics)
	pool := pacing.NewPool("aws", m)
	return func(provider.View) (provider.Provider, error) {
		p, err := New(ctx, Config{
			DomainFilter: env.DomainFilter, ZoneIDFilter: env.ZoneIDFilter, ZoneType: s.AWSZoneType,
			ZoneTags: s.AWSZoneTags, ZonesCacheDuration: s.AWSZonesCacheDuration,
			BatchChangeSize: s.AWSBatchChangeSize, BatchChangeSizeBytes: s.AWSBatchChangeSizeBytes,
			BatchChangeSizeValues: s.AWSBatchChangeSizeValues, BatchChangeInterval: s.AWSBatchChangeInterval,
			EvaluateTargetHealth: s.AWSEvaluateTargetHealth, PreferCNAME: s.AWSPreferCNAME,
			APIRetries: s.AWSAPIRetries, Region: s.AWSRegion, Profiles: s.AWSProfiles,
			AssumeRole: s.AWSAssumeRole, AssumeRoleExternalID: s.AWSAssumeRoleExternalID,
			RequestsPerSecond: s.AWSRequestsPerSecond, Pool: pool, Metrics: m, Logger: env.Log,
		})
		if err != nil {
			return nil, fmt.Errorf("--provider=aws: %w", err)
		}
		return p, nil
	}, nil
}
