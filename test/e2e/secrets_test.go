package e2e

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// Issue 11 defect 6: no secret a test configures may reach a log. Every zonekeeper run by the harness
// checks its log, when it ends, against every secret it was given: environment variables and flags
// whose names say they hold one (AWS secret key, TSIG secrets, PowerDNS API key, etcd password,
// Cloudflare token, txt-encrypt key, webhook URL credentials, Kerberos password). The failure names
// the variable or flag, never the value.

var (
	secretEnvName  = regexp.MustCompile(`(SECRET|PASSWORD|API_KEY|TOKEN|AES_KEY)`)
	secretFlagName = regexp.MustCompile(`^--?[a-z0-9-]*(secret|password|api-key|token|aes-key)[a-z0-9-]*=(.+)$`)
	urlUserinfo    = regexp.MustCompile(`://[^/@\s]*:([^/@\s]+)@`)
)

// minSecretLen leaves out placeholders such as CF_API_TOKEN=x, which would match everywhere.
const minSecretLen = 8

// configuredSecrets returns name → value of the secrets in the environment and in flags.
func configuredSecrets(flags []string) map[string]string {
	out := map[string]string{}
	for _, kv := range os.Environ() {
		name, value, _ := strings.Cut(kv, "=")
		if secretEnvName.MatchString(name) && !strings.HasSuffix(name, "_FILE") && len(value) >= minSecretLen {
			out["$"+name] = value
		}
		if m := urlUserinfo.FindStringSubmatch(value); m != nil && len(m[1]) >= minSecretLen {
			out["the password in $"+name] = m[1]
		}
	}
	for _, f := range flags {
		if m := secretFlagName.FindStringSubmatch(f); m != nil && !strings.Contains(f, "-file=") && len(m[2]) >= minSecretLen {
			out[f[:strings.Index(f, "=")]] = m[2]
		}
		if m := urlUserinfo.FindStringSubmatch(f); m != nil && len(m[1]) >= minSecretLen {
			out["the password in "+f[:max(0, strings.Index(f, "="))]] = m[1]
		}
	}
	return out
}

// checkNoSecretsLogged fails t for each configured secret found in log.
func checkNoSecretsLogged(t testing.TB, who, log string, secrets map[string]string) {
	t.Helper()
	for name, value := range secrets {
		if strings.Contains(log, value) {
			t.Errorf("%s logged the secret of %s", who, name)
		}
	}
}

// The check finds what it must: each kind of secret, in the environment, a flag or a URL.
func TestConfiguredSecretsAreFound(t *testing.T) {
	t.Setenv("EXTERNAL_DNS_RFC2136_TSIG_SECRET", "c2VjcmV0LXRzaWc=")
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDNOTSECRET")
	t.Setenv("EXTERNAL_DNS_WEBHOOK_PROVIDER_URL", "http://user:hunter2hunter2@127.0.0.1:1")
	got := configuredSecrets([]string{"--pdns-api-key=pdns-key-123", "--txt-encrypt-aes-key=0123456789abcdef",
		"--rfc2136-tsig-secret-file=/secret/file", "--etcd-password=x"})
	for _, want := range []string{"$EXTERNAL_DNS_RFC2136_TSIG_SECRET", "--pdns-api-key", "--txt-encrypt-aes-key",
		"the password in $EXTERNAL_DNS_WEBHOOK_PROVIDER_URL"} {
		if _, ok := got[want]; !ok {
			t.Errorf("%s not found among %v", want, secretNames(got))
		}
	}
	for _, not := range []string{"$AWS_ACCESS_KEY_ID", "--rfc2136-tsig-secret-file", "--etcd-password"} {
		if _, ok := got[not]; ok {
			t.Errorf("%s taken for a secret", not)
		}
	}
}

func secretNames(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
