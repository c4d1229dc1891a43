package cloudflare

import (
	"os"
	"strings"

	"github.com/cloudflare/cloudflare-go/v7/addressing"
	"github.com/cloudflare/cloudflare-go/v7/custom_hostnames"
	"github.com/cloudflare/cloudflare-go/v7/dns"
	"github.com/cloudflare/cloudflare-go/v7/option"
	"github.com/cloudflare/cloudflare-go/v7/zones"
)

// sdkClient holds the four SDK services the provider calls. It is built from the service packages
// rather than the SDK's root package: the root's Client imports every one of its ~120 services,
// whose code and package initialisation then sit in the binary of every zonekeeper, whatever the
// provider (about 14 MB of code; see README.md, "Differences from external-dns").
type sdkClient struct {
	DNS             *dns.DNSService
	Zones           *zones.ZoneService
	Addressing      *addressing.AddressingService
	CustomHostnames *custom_hostnames.CustomHostnameService
}

// newSDKClient builds the services as the root package's NewClient does: the options it reads from
// the environment first, then opts, so that a request is the same as through the root client.
func newSDKClient(opts ...option.RequestOption) *sdkClient {
	opts = append(sdkEnvironmentOptions(os.LookupEnv), opts...)
	return &sdkClient{
		DNS:             dns.NewDNSService(opts...),
		Zones:           zones.NewZoneService(opts...),
		Addressing:      addressing.NewAddressingService(opts...),
		CustomHostnames: custom_hostnames.NewCustomHostnameService(opts...),
	}
}

// sdkEnvironmentOptions are the options cloudflare-go v7.7.0's DefaultClientOptions reads from the
// process environment, in its order. external-dns builds its client with them, so zonekeeper keeps
// them: CLOUDFLARE_API_USER_SERVICE_KEY and CLOUDFLARE_CUSTOM_HEADERS ("Name: value" lines) add
// headers to every request, and an unparsable CLOUDFLARE_BASE_URL fails every request as it does
// through the SDK. The SDK's default HTTP client is left out: the provider always sets its own.
func sdkEnvironmentOptions(lookupEnv func(string) (string, bool)) []option.RequestOption {
	opts := []option.RequestOption{option.WithEnvironmentProduction()}
	if v, ok := lookupEnv(envBaseURL); ok {
		opts = append(opts, option.WithBaseURL(v))
	}
	if v, ok := lookupEnv("CLOUDFLARE_API_TOKEN"); ok {
		opts = append(opts, option.WithAPIToken(v))
	}
	if v, ok := lookupEnv("CLOUDFLARE_API_KEY"); ok {
		opts = append(opts, option.WithAPIKey(v))
	}
	if v, ok := lookupEnv("CLOUDFLARE_EMAIL"); ok {
		opts = append(opts, option.WithAPIEmail(v))
	}
	if v, ok := lookupEnv("CLOUDFLARE_API_USER_SERVICE_KEY"); ok {
		opts = append(opts, option.WithUserServiceKey(v))
	}
	if v, ok := lookupEnv("CLOUDFLARE_CUSTOM_HEADERS"); ok {
		for _, line := range strings.Split(v, "\n") {
			if name, value, found := strings.Cut(line, ":"); found {
				opts = append(opts, option.WithHeader(strings.TrimSpace(name), strings.TrimSpace(value)))
			}
		}
	}
	return opts
}
