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
		"--source":                                 {"--provider=inmemory"},
		"--source=manifest needs":                  {"--source=manifest", "--provider=inmemory"},
		"--provider=route66":                       {"--source=service", "--provider=route66"},
		"--policy=everything":                      {"--source=service", "--provider=inmemory", "--policy=everything"},
		"--txt-prefix and --txt-suffix":            {"--source=service", "--provider=inmemory", "--txt-prefix=a", "--txt-suffix=b"},
		"--ignore-hostname-annotation":             {"--source=service", "--provider=inmemory", "--ignore-hostname-annotation"},
		"--txt-encrypt-enabled":                    {"--source=service", "--provider=inmemory", "--txt-encrypt-enabled"},
		"--webhook-server with --provider=webhook": {"--webhook-server", "--provider=webhook"},
		"--webhook-server with --view":             {"--webhook-server", "--provider=inmemory", "--view=internal"},
	}
	for want, args := range cases {
		_, _, err := Parse("z", args, env(nil), io.Discard)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("args %v: error %v, want mention of %q", args, err, want)
		}
	}
}

// The defaults users get without a flag, external-dns's where it has the flag.
func TestDefaults(t *testing.T) {
	cfg, _, err := Parse("z", []string{"--source=service", "--provider=aws"}, env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	checks := map[string]bool{
		"policy sync":                        cfg.Policy == "sync",
		"txt-owner-id default":               cfg.TXTOwnerID == "default",
		"interval 1m":                        cfg.Interval == time.Minute,
		"min-event-sync-interval 100ms":      cfg.MinEventSyncInterval == 100*time.Millisecond,
		"metrics-address :7979":              cfg.MetricsAddress == ":7979",
		"rfc2136-batch-change-size 50":       cfg.RFC2136BatchChangeSize == 50,
		"pdns-server localhost:8081":         cfg.PDNSServer == "http://localhost:8081",
		"pdns-server-id localhost":           cfg.PDNSServerID == "localhost",
		"aws-batch-change-size 1000":         cfg.AWSBatchChangeSize == 1000,
		"aws-batch-change-size-bytes 32000":  cfg.AWSBatchChangeSizeBytes == 32000,
		"aws-batch-change-size-values 1000":  cfg.AWSBatchChangeSizeValues == 1000,
		"aws-batch-change-interval none":     cfg.AWSBatchChangeInterval == 0,
		"aws-evaluate-target-health true":    cfg.AWSEvaluateTargetHealth,
		"aws-api-retries 3":                  cfg.AWSAPIRetries == 3,
		"builtin-listen :5353":               len(cfg.BuiltinListen) == 1 && cfg.BuiltinListen[0] == ":5353",
		"public-ip-refresh-interval 5m":      cfg.PublicIPRefreshInterval == 5*time.Minute,
		"exclude-unschedulable true":         cfg.ExcludeUnschedulable,
		"webhook-provider-url":               cfg.WebhookProviderURL == "http://localhost:8888",
		"webhook-provider-read-timeout 5s":   cfg.WebhookProviderReadTimeout == 5*time.Second,
		"webhook-provider-write-timeout 10s": cfg.WebhookProviderWriteTimeout == 10*time.Second,
		"webhook-server-address":             cfg.WebhookServerAddress == "127.0.0.1:8888" && !cfg.WebhookServer,
	}
	for what, ok := range checks {
		if !ok {
			t.Errorf("default %s does not hold", what)
		}
	}
	if _, _, err := Parse("z", []string{"--source=service", "--provider=builtin", "--leader-elect"}, env(nil), io.Discard); err == nil ||
		!strings.Contains(err.Error(), "--leader-elect with --provider=builtin") {
		t.Errorf("builtin with leader election: %v", err)
	}
}

// The webhook server reads no sources, as external-dns's --webhook-server; the client is a provider
// like the others.
func TestWebhookSettings(t *testing.T) {
	if _, _, err := Parse("z", []string{"--webhook-server", "--provider=pdns"}, env(nil), io.Discard); err != nil {
		t.Errorf("webhook server without sources: %v", err)
	}
	cfg, _, err := Parse("z", []string{"--source=ingress", "--provider=webhook", "--webhook-provider-url=http://127.0.0.1:9999"},
		env(map[string]string{"EXTERNAL_DNS_WEBHOOK_PROVIDER_READ_TIMEOUT": "7s"}), io.Discard)
	if err != nil || cfg.WebhookProviderURL != "http://127.0.0.1:9999" || cfg.WebhookProviderReadTimeout != 7*time.Second {
		t.Errorf("webhook client settings: %+v %v", cfg.WebhookProviderURL, err)
	}
}

func TestKingpinNegatedBooleans(t *testing.T) {
	cfg, _, err := Parse("z", []string{"--source=service", "--provider=aws", "--no-aws-evaluate-target-health", "--no-exclude-unschedulable"}, env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.AWSEvaluateTargetHealth || cfg.ExcludeUnschedulable {
		t.Fatalf("--no-X did not turn the flags off: %+v", cfg)
	}
	if _, _, err := Parse("z", []string{"--source=service", "--provider=aws", "--no-such-flag"}, env(nil), io.Discard); err == nil {
		t.Fatal("an unknown --no- flag was accepted")
	}
}
