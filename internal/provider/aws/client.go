package aws

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	"github.com/aws/aws-sdk-go-v2/service/sts"
)

// newClient builds the Route 53 client with the SDK's default credential chain: static keys from the
// environment (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, e.g. from a Secret), shared config and
// credentials files with AWS_PROFILE or Config.Profile, IRSA web identity (AWS_ROLE_ARN +
// AWS_WEB_IDENTITY_TOKEN_FILE), EKS Pod Identity and the instance role; then, with Config.AssumeRole,
// STS AssumeRole on top. Nothing here reads or logs a secret itself: the SDK resolves credentials
// lazily, on the first call.
func newClient(ctx context.Context, cfg Config, lim *Limiter) (*route53.Client, error) {
	opts := []func(*config.LoadOptions) error{
		config.WithRetryer(func() aws.Retryer {
			return retry.NewStandard(func(o *retry.StandardOptions) {
				o.MaxAttempts = cfg.APIRetries
				// The adaptive limiter paces the account; the SDK's retry quota would otherwise stop
				// retrying throttles after a burst and fail a whole sync.
				o.RateLimiter = ratelimit.None
				if cfg.RetryMaxBackoff > 0 {
					o.MaxBackoff = cfg.RetryMaxBackoff
				}
			})
		}),
	}
	if cfg.Region != "" {
		opts = append(opts, config.WithRegion(cfg.Region))
	}
	if cfg.Profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(cfg.Profile))
	}
	if cfg.Endpoint != "" {
		// Also reaches the STS call of web identity credentials (AWS_ENDPOINT_URL alone does not).
		opts = append(opts, config.WithBaseEndpoint(cfg.Endpoint))
	}
	awsCfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("aws configuration: %w", err)
	}
	if awsCfg.Region == "" {
		awsCfg.Region = "us-east-1" // Route 53 is global and signs for us-east-1
	}
	if cfg.AssumeRole != "" {
		stsClient := sts.NewFromConfig(awsCfg)
		awsCfg.Credentials = aws.NewCredentialsCache(stscreds.NewAssumeRoleProvider(stsClient, cfg.AssumeRole, func(o *stscreds.AssumeRoleOptions) {
			if cfg.AssumeRoleExternalID != "" {
				o.ExternalID = aws.String(cfg.AssumeRoleExternalID)
			}
		}))
	}
	return route53.NewFromConfig(awsCfg, func(o *route53.Options) {
		o.APIOptions = append(o.APIOptions, pacedBy(lim, cfg.Metrics))
	}), nil
}
