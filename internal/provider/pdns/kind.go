package pdns

import (
	"context"
	"flag"
	"fmt"

	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// PDNSFlags are --provider=pdns's settings, with external-dns's flag names. --tls-ca,
// --tls-client-cert and --tls-client-cert-key are shared with other providers (provider.Env).
type PDNSFlags struct {
	PDNSServer        string
	PDNSServerID      string
	PDNSAPIKey        string
	PDNSAPIKeyFile    string
	PDNSSkipTLSVerify bool
}

// Kind is --provider=pdns.
func (s *PDNSFlags) Kind() provider.Kind {
	return provider.Kind{
		Name:     "pdns",
		Defaults: func() { *s = PDNSFlags{PDNSServer: "http://localhost:8081", PDNSServerID: "localhost"} },
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&s.PDNSServer, "pdns-server", s.PDNSServer, "PowerDNS API URL")
			fs.StringVar(&s.PDNSServerID, "pdns-server-id", s.PDNSServerID, "PowerDNS server id")
			fs.StringVar(&s.PDNSAPIKey, "pdns-api-key", s.PDNSAPIKey, "PowerDNS API key (prefer --pdns-api-key-file or EXTERNAL_DNS_PDNS_API_KEY)")
			fs.StringVar(&s.PDNSAPIKeyFile, "pdns-api-key-file", s.PDNSAPIKeyFile, "file holding the PowerDNS API key")
			fs.BoolVar(&s.PDNSSkipTLSVerify, "pdns-skip-tls-verify", s.PDNSSkipTLSVerify, "do not verify the PowerDNS API certificate")
		},
		NoViews: "PowerDNS 4.7 has no views; run one zonekeeper per PowerDNS server",
		New: func(_ context.Context, env provider.Env) (func(provider.View) (provider.Provider, error), error) {
			return func(provider.View) (provider.Provider, error) {
				p, err := New(Config{
					Server: s.PDNSServer, ServerID: s.PDNSServerID,
					APIKey: s.PDNSAPIKey, APIKeyFile: s.PDNSAPIKeyFile,
					SkipTLSVerify: s.PDNSSkipTLSVerify, CAFile: env.TLS.CAFile,
					ClientCertFile: env.TLS.CertFile, ClientKeyFile: env.TLS.KeyFile,
					DomainFilter: env.DomainFilter,
				})
				if err != nil {
					return nil, fmt.Errorf("--provider=pdns: %w", err)
				}
				return p, nil
			}, nil
		},
	}
}
