// Command azuredns-emulator serves the Azure DNS and Azure Private DNS
// emulator (Resource Manager paths, the Entra ID login endpoints and the
// /_emulator/ control API) over TLS on a local port, for end-to-end tests of
// Azure DNS clients such as zonekeeper and external-dns. The first line on
// stdout is the base URL, to use as resourceManagerEndpoint and
// activeDirectoryAuthorityHost in an AzureStackCloud azure.json (which
// --write-azure-json writes). See internal/azurednsemu/README.md.
package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/zonekeeper/zonekeeper/internal/azurednsemu"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "azuredns-emulator:", err)
		os.Exit(1)
	}
}

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// run parses flags, creates the zones and serves until ctx ends.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("azuredns-emulator", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:0", "address to listen on; port 0 picks a free port")
	sub := fs.String("subscription", "00000000-0000-0000-0000-000000000001", "subscription the --zone and --private-zone zones are created in")
	rg := fs.String("resource-group", "emu-rg", "resource group the --zone and --private-zone zones are created in")
	tenant := fs.String("tenant", "emu-tenant", "tenant of the registered application")
	clientID := fs.String("client-id", "emu-client", "client id of the registered application")
	secret := fs.String("client-secret", "emu-secret", "client secret of the registered application")
	pageSize := fs.Int("page-size", azurednsemu.DefaultPageSize, "longest list page ($top can only shorten it); set it low to force nextLink paging")
	rate := fs.Float64("rate-limit", 0, "requests per second per subscription before HTTP 429 with Retry-After; 0 disables")
	burst := fs.Int("burst", 0, "token bucket size; 0 means ceil(rate-limit)")
	retryAfter := fs.Int("retry-after", 1, "Retry-After seconds of 429 answers")
	seed := fs.String("seed", "", "JSON seed file (see internal/azurednsemu/README.md)")
	certFile := fs.String("tls-cert", "", "PEM certificate to serve (with --tls-key); default: a generated test CA's certificate")
	keyFile := fs.String("tls-key", "", "PEM private key of --tls-cert")
	writeCA := fs.String("write-ca", "", "write the generated test CA certificate (PEM) here, for SSL_CERT_FILE")
	writeJSON := fs.String("write-azure-json", "", "write an AzureStackCloud azure.json for the registered application pointing at this emulator")
	var zones, private, tokens, hosts listFlag
	fs.Var(&zones, "zone", "public DNS zone to create (repeatable)")
	fs.Var(&private, "private-zone", "private DNS zone to create (repeatable)")
	fs.Var(&tokens, "static-token", "bearer token ARM calls accept without a login (repeatable)")
	fs.Var(&hosts, "tls-host", "extra host name or IP for the generated certificate (repeatable; loopback, management.azure.com and login.microsoftonline.com are always in it)")
	verbose := fs.Bool("v", false, "log every request to stderr")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *rate < 0 || *burst < 0 || *pageSize <= 0 || *retryAfter <= 0 {
		return fmt.Errorf("--rate-limit and --burst must not be negative, --page-size and --retry-after must be positive")
	}
	if (*certFile == "") != (*keyFile == "") {
		return fmt.Errorf("--tls-cert and --tls-key go together")
	}
	if *certFile != "" && (*writeCA != "" || len(hosts) > 0) {
		return fmt.Errorf("--write-ca and --tls-host are for the generated certificate, not with --tls-cert")
	}
	var tlsConfig *tls.Config
	if *certFile != "" {
		cert, err := tls.LoadX509KeyPair(*certFile, *keyFile)
		if err != nil {
			return err
		}
		tlsConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	} else {
		ca, err := azurednsemu.NewTestCA(append(append([]string{}, azurednsemu.DefaultTLSHosts...), hosts...)...)
		if err != nil {
			return err
		}
		tlsConfig = ca.ServerTLS()
		if *writeCA != "" {
			if err := os.WriteFile(*writeCA, ca.CertPEM, 0o644); err != nil {
				return err
			}
		}
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	cred := azurednsemu.Credential{TenantID: *tenant, ClientID: *clientID, ClientSecret: *secret}
	srv := azurednsemu.New(azurednsemu.Options{
		PageSize: *pageSize, RateLimit: *rate, Burst: *burst, RetryAfter: *retryAfter, StaticTokens: tokens,
		Credentials: []azurednsemu.Credential{cred},
		Logger:      slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})),
	})
	var s azurednsemu.Seed
	if *seed != "" {
		var err error
		if s, err = azurednsemu.LoadSeedFile(*seed); err != nil {
			return err
		}
	}
	group := azurednsemu.SeedResourceGroup{Name: *rg}
	for _, z := range zones {
		group.Zones = append(group.Zones, azurednsemu.SeedZone{Name: z})
	}
	for _, z := range private {
		group.PrivateZones = append(group.PrivateZones, azurednsemu.SeedZone{Name: z})
	}
	s.Subscriptions = append(s.Subscriptions, azurednsemu.SeedSubscription{ID: *sub, ResourceGroups: []azurednsemu.SeedResourceGroup{group}})
	if err := srv.Seed(s); err != nil {
		return err
	}
	var werr error
	serr := srv.ListenAndServe(ctx, *listen, tlsConfig, func(url string) {
		if *writeJSON != "" {
			werr = writeAzureJSON(*writeJSON, url+"/", *sub, *rg, cred)
			if werr != nil {
				fmt.Fprintln(stderr, "azuredns-emulator:", werr)
			}
		}
		fmt.Fprintln(stdout, url+"/")
		fmt.Fprintf(stderr, "subscription %s resource group %s; login: tenant %s client %s\ncontrol API: %s/_emulator/\n", *sub, *rg, *tenant, *clientID, url)
	})
	if serr != nil {
		return serr
	}
	return werr
}

// writeAzureJSON writes the azure.json form external-dns and zonekeeper
// read, with the AzureStackCloud endpoints set to the emulator.
func writeAzureJSON(path, base, sub, rg string, c azurednsemu.Credential) error {
	b, err := json.MarshalIndent(map[string]string{
		"cloud": "AzureStackCloud", "tenantId": c.TenantID, "subscriptionId": sub, "resourceGroup": rg,
		"aadClientId": c.ClientID, "aadClientSecret": c.ClientSecret,
		"activeDirectoryAuthorityHost": base, "resourceManagerEndpoint": base,
		"resourceManagerAudience": "https://management.core.windows.net/",
	}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}
