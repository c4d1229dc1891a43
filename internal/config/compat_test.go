package config

import (
	"io"
	"strings"
	"testing"
	"time"
)

// External-dns flags zonekeeper lacks are refused when set, naming the flag and why; turning them off,
// or leaving their default, is accepted.
func TestRefusedFlags(t *testing.T) {
	base := []string{"--source=service", "--provider=inmemory"}
	for args, want := range map[string]string{
		"--godaddy-api-key=k":                           "--godaddy-api-key: the godaddy provider is not part of zonekeeper",
		"--ns1-endpoint=https://ns1.example":            "--ns1-endpoint: the ns1 provider",
		"--aws-sd-service-cleanup":                      "--aws-sd-service-cleanup: the aws-sd provider",
		"--zone-name-filter=example.com":                "--zone-name-filter: not implemented",
		"--rfc2136-load-balancing-strategy=round-robin": "--rfc2136-load-balancing-strategy: not implemented",
		"--coredns-strictly-owned":                      "--coredns-strictly-owned: not implemented",
	} {
		_, _, err := Parse("z", append(base, strings.Fields(args)...), env(nil), io.Discard)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", args, err, want)
		}
	}
	for _, args := range []string{"--cloudflare-proxied=false", "--no-cloudflare-proxied", "--rfc2136-load-balancing-strategy=disabled",
		"--batch-change-size=100", "--events-emit=RecordReady", "--server=https://127.0.0.1:6443"} {
		if _, _, err := Parse("z", append(base, args), env(nil), io.Discard); err != nil {
			t.Errorf("%s: %v", args, err)
		}
	}
	if _, _, err := Parse("z", base, env(map[string]string{"EXTERNAL_DNS_PIHOLE_SERVER": "http://pi.hole"}), io.Discard); err == nil ||
		!strings.Contains(err.Error(), "--pihole-server") {
		t.Errorf("a refused flag from the environment: %v", err)
	}
}

func TestSourcePostProcessingFlags(t *testing.T) {
	cfg, _, err := Parse("z", []string{"--source=service", "--provider=inmemory", "--default-targets=203.0.113.7",
		"--default-targets=2001:db8::7", "--target-net-filter=10.0.0.0/8", "--exclude-target-net=10.9.0.0/16",
		"--min-ttl=2m", "--kube-api-qps=50", "--kube-api-burst=100", "--request-timeout=10s"}, env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.DefaultTargets) != 2 || len(cfg.TargetNetFilter) != 1 || cfg.MinTTL != 2*time.Minute ||
		cfg.KubeAPIQPS != 50 || cfg.KubeAPIBurst != 100 || cfg.RequestTimeout != 10*time.Second {
		t.Errorf("parsed %+v", cfg)
	}
	for args, want := range map[string]string{
		"--target-net-filter=10.0.0.0":                            "--target-net-filter=10.0.0.0: not a CIDR",
		"--default-targets=a.example --default-targets=192.0.2.1": "--default-targets: IP addresses, or one hostname",
		"--force-default-targets":                                 "--force-default-targets needs --default-targets",
		"--crd-source-kind=MyEndpoint":                            "only externaldns.k8s.io/v1alpha1 DNSEndpoint",
	} {
		_, _, err := Parse("z", append([]string{"--source=service", "--provider=inmemory"}, strings.Fields(args)...), env(nil), io.Discard)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", args, err, want)
		}
	}
	if cfg, _, err := Parse("z", []string{"--version"}, env(nil), io.Discard); err != nil || !cfg.PrintVersion {
		t.Errorf("--version alone: %v", err)
	}
}
