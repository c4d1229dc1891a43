package config

import (
	"io"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestParseExternalDNSCommandLine(t *testing.T) {
	args := []string{
		"--source=service", "--source=ingress", "--provider=coredns", "--registry=txt", "--policy=upsert-only",
		"--txt-owner-id=k8s", "--txt-prefix=prefix_", "--domain-filter=example.com", "--domain-filter=example.org",
		"--interval=30s", "--events", "--log-format=json",
	}
	cfg, rest, err := Parse("zonekeeper", args, env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(rest) != 0 {
		t.Fatalf("rest %v", rest)
	}
	if strings.Join(cfg.Sources, ",") != "service,ingress" || cfg.Provider != "coredns" || cfg.Policy != "upsert-only" ||
		cfg.TXTOwnerID != "k8s" || cfg.TXTPrefix != "prefix_" || len(cfg.DomainFilter) != 2 || cfg.Interval != 30*time.Second ||
		cfg.LogFormat != "json" {
		t.Fatalf("parsed %+v", cfg)
	}
	if strings.Join(cfg.ManagedRecordTypes, ",") != "A,AAAA,CNAME" {
		t.Fatalf("default managed types %v", cfg.ManagedRecordTypes)
	}
}

func TestRepeatableFlagReplacesDefault(t *testing.T) {
	cfg, _, err := Parse("z", []string{"--source=service", "--provider=inmemory", "--managed-record-types=A", "--managed-record-types=TXT"}, env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(cfg.ManagedRecordTypes, ",") != "A,TXT" {
		t.Fatalf("managed types %v", cfg.ManagedRecordTypes)
	}
}

func TestEnvironmentFillsFlagsNotGiven(t *testing.T) {
	e := env(map[string]string{
		"EXTERNAL_DNS_SOURCE":       "service\ningress",
		"EXTERNAL_DNS_PROVIDER":     "coredns",
		"EXTERNAL_DNS_TXT_OWNER_ID": "from-env",
		"ZONEKEEPER_POLICY":         "create-only",
	})
	cfg, _, err := Parse("z", []string{"--txt-owner-id=from-flag"}, e, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(cfg.Sources, ",") != "service,ingress" || cfg.Provider != "coredns" || cfg.Policy != "create-only" {
		t.Fatalf("parsed %+v", cfg)
	}
	if cfg.TXTOwnerID != "from-flag" {
		t.Fatalf("flag must win over environment, got %q", cfg.TXTOwnerID)
	}
}

func TestValidationNamesTheFlag(t *testing.T) {
	cases := map[string][]string{
		"--source":                      {"--provider=inmemory"},
		"--source=manifest needs":       {"--source=manifest", "--provider=inmemory"},
		"--provider=route66":            {"--source=service", "--provider=route66"},
		"--policy=everything":           {"--source=service", "--provider=inmemory", "--policy=everything"},
		"--txt-prefix and --txt-suffix": {"--source=service", "--provider=inmemory", "--txt-prefix=a", "--txt-suffix=b"},
		"--ignore-hostname-annotation":  {"--source=service", "--provider=inmemory", "--ignore-hostname-annotation"},
		"--txt-encrypt-enabled":         {"--source=service", "--provider=inmemory", "--txt-encrypt-enabled"},
	}
	for want, args := range cases {
		_, _, err := Parse("z", args, env(nil), io.Discard)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("args %v: error %v, want mention of %q", args, err, want)
		}
	}
}
