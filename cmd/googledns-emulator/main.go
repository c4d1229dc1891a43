// Command googledns-emulator serves the Google Cloud DNS v1 emulator (its
// OAuth2 token endpoint and its /_emulator/ control API) on a local port,
// for end-to-end tests of Cloud DNS clients such as zonekeeper. The first
// line on stdout is the endpoint to give the client (option.WithEndpoint).
// See internal/googlednsemu/README.md.
package main

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/zonekeeper/zonekeeper/internal/googlednsemu"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "googledns-emulator:", err)
		os.Exit(1)
	}
}

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// defaultNetwork is the VPC network private zones are attached to when
// --private-zone names none.
const defaultNetwork = "https://www.googleapis.com/compute/v1/projects/%s/global/networks/default"

// run parses flags, creates the project and zones and serves until ctx ends.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("googledns-emulator", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:0", "address to listen on; port 0 picks a free port")
	projectID := fs.String("project", "emu-project", "project the --zone and --private-zone zones are created in")
	rate := fs.Float64("rate-limit", 0, "requests per second per project before HTTP 429 rateLimitExceeded; 0 disables (Google publishes no default)")
	burst := fs.Int("burst", 0, "token bucket size; 0 means ceil(rate-limit)")
	pageSize := fs.Int("page-size", googlednsemu.DefaultPageSize, "list page length when a call sets no maxResults")
	seed := fs.String("seed", "", "JSON seed file with projects, zones and record sets (see internal/googlednsemu/README.md)")
	creds := fs.String("write-credentials", "", "write a throwaway service-account key file whose token_uri is this emulator (for GOOGLE_APPLICATION_CREDENTIALS)")
	var zones, private, tokens listFlag
	fs.Var(&zones, "zone", "public zone NAME=DNSNAME to create in --project (repeatable)")
	fs.Var(&private, "private-zone", "private zone NAME=DNSNAME[=NETWORK_URL,...] to create in --project (repeatable; default network: the project's default)")
	fs.Var(&tokens, "static-token", "access token accepted without /token, with every scope (repeatable)")
	verbose := fs.Bool("v", false, "log every request to stderr")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *rate < 0 || *burst < 0 || *pageSize <= 0 {
		return fmt.Errorf("--rate-limit and --burst must not be negative, --page-size must be positive")
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	srv := googlednsemu.New(googlednsemu.Options{
		RateLimit: *rate, Burst: *burst, PageSize: *pageSize, StaticTokens: tokens,
		Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})),
	})
	var s googlednsemu.Seed
	if *seed != "" {
		var err error
		if s, err = googlednsemu.LoadSeedFile(*seed); err != nil {
			return err
		}
	}
	p := googlednsemu.SeedProject{ID: *projectID}
	for _, z := range zones {
		name, dnsName, ok := strings.Cut(z, "=")
		if !ok || strings.Contains(dnsName, "=") {
			return fmt.Errorf("--zone %q: want NAME=DNSNAME", z)
		}
		p.Zones = append(p.Zones, googlednsemu.SeedZone{Name: name, DNSName: dnsName})
	}
	for _, z := range private {
		parts := strings.SplitN(z, "=", 3)
		if len(parts) < 2 {
			return fmt.Errorf("--private-zone %q: want NAME=DNSNAME[=NETWORK_URL,...]", z)
		}
		nets := []string{fmt.Sprintf(defaultNetwork, *projectID)}
		if len(parts) == 3 {
			nets = strings.Split(parts[2], ",")
		}
		p.Zones = append(p.Zones, googlednsemu.SeedZone{Name: parts[0], DNSName: parts[1], Visibility: "private", Networks: nets})
	}
	s.Projects = append(s.Projects, p)
	created, err := srv.Seed(s)
	if err != nil {
		return err
	}
	for _, z := range created {
		fmt.Fprintf(stderr, "zone %s/%s id %s %s\n", z.Project, z.Name, z.ID, z.DNSName)
	}
	var werr error
	serr := srv.ListenAndServe(ctx, *listen, func(url string) {
		if *creds != "" {
			if werr = writeCredentials(*creds, url+googlednsemu.TokenPath, *projectID); werr != nil {
				fmt.Fprintln(stderr, "googledns-emulator:", werr)
			}
		}
		fmt.Fprintln(stdout, url+"/")
		fmt.Fprintf(stderr, "token endpoint: %s%s\ncontrol API: %s/_emulator/\n", url, googlednsemu.TokenPath, url)
	})
	if serr != nil {
		return serr
	}
	return werr
}

// writeCredentials writes a service-account key file with a fresh RSA key;
// the emulator does not check signatures, so the key only has to be valid
// for the client library to sign its token request.
func writeCredentials(path, tokenURI, projectID string) error {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(map[string]string{
		"type": "service_account", "project_id": projectID, "private_key_id": "emulator",
		"private_key":  string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email": "emulator@" + projectID + ".iam.gserviceaccount.com", "client_id": "1",
		"token_uri": tokenURI,
	}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}
