package cloudflare_test

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/config"
)

// The flags are external-dns's, bound by the kind, read from the command line and the EXTERNAL_DNS_*
// environment; a value out of range, or a custom-hostname setting without custom hostnames, is refused
// naming the flag.
func TestCloudflareFlags(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	base := []string{"--source=service", "--provider=cloudflare"}
	cfg, _, err := config.Parse("z", append(base, "--cloudflare-proxied", "--cloudflare-dns-records-per-page=500",
		"--batch-change-size=50", "--batch-change-interval=2s", "--cloudflare-custom-hostnames-min-tls-version=1.0",
		"--cloudflare-custom-hostnames-certificate-authority=none", "--cloudflare-regional-services", "--cloudflare-region-key=eu"),
		env(map[string]string{"EXTERNAL_DNS_CLOUDFLARE_RECORD_COMMENT": "from env"}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.CloudflareProxied || cfg.CloudflareDNSRecordsPerPage != 500 || cfg.CloudflareBatchChangeSize != 50 ||
		cfg.CloudflareBatchChangeInterval != 2*time.Second || cfg.CloudflareRecordComment != "from env" ||
		!cfg.CloudflareRegionalServices || cfg.CloudflareRegionKey != "eu" {
		t.Errorf("parsed %+v", cfg.CloudflareFlags)
	}
	cfg, _, err = config.Parse("z", append(base, "--cloudflare-custom-hostnames", "--cloudflare-custom-hostnames-min-tls-version=1.3",
		"--cloudflare-custom-hostnames-certificate-authority=google"), env(nil), io.Discard)
	if err != nil || !cfg.CloudflareCustomHostnames || cfg.CloudflareCustomHostnamesMinTLSVersion != "1.3" || cfg.CloudflareCustomHostnamesCertificateAuthority != "google" {
		t.Errorf("custom hostnames: %+v %v", cfg.CloudflareFlags, err)
	}
	cfg, _, err = config.Parse("z", base, env(nil), io.Discard)
	if err != nil || cfg.CloudflareDNSRecordsPerPage != 100 || cfg.CloudflareBatchChangeSize != 200 || cfg.CloudflareBatchChangeInterval != time.Second {
		t.Errorf("defaults %+v %v", cfg.CloudflareFlags, err)
	}
	for arg, want := range map[string]string{
		"--cloudflare-custom-hostnames-min-tls-version=1.2":            "--cloudflare-custom-hostnames-min-tls-version=1.2 needs --cloudflare-custom-hostnames",
		"--cloudflare-custom-hostnames-certificate-authority=google":   "--cloudflare-custom-hostnames-certificate-authority=google needs --cloudflare-custom-hostnames",
		"--cloudflare-custom-hostnames-min-tls-version=1.4":            "--cloudflare-custom-hostnames-min-tls-version=1.4: must be 1.0, 1.1, 1.2 or 1.3",
		"--cloudflare-custom-hostnames-certificate-authority=digicert": "--cloudflare-custom-hostnames-certificate-authority=digicert: must be google, ssl_com, lets_encrypt or none",
		"--cloudflare-dns-records-per-page=0":                          "--cloudflare-dns-records-per-page=0: must be from 1 to 5000",
		"--batch-change-size=0":                                        "--batch-change-size=0",
	} {
		if _, _, err := config.Parse("z", append(base, arg), env(nil), io.Discard); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", arg, err, want)
		}
	}
}
