package rfc2136

import (
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// EnvTSIGSecret is the environment variable external-dns reads --rfc2136-tsig-secret from.
const EnvTSIGSecret = "EXTERNAL_DNS_RFC2136_TSIG_SECRET"

// keyStatementSecret finds the secret in a tsig-keygen key statement.
var keyStatementSecret = regexp.MustCompile(`secret\s+"([^"]*)"`)

// LoadTSIGSecret returns the TSIG secret from the flag value (--rfc2136-tsig-secret), else the file
// (--rfc2136-tsig-secret-file), else the environment (EnvTSIGSecret, read with getenv). The file holds
// the base64 secret, or the key statement tsig-keygen prints, so the file BIND includes can be mounted
// as is. Giving a value and a file is an error. No error ever contains the secret.
func LoadTSIGSecret(value, file string, getenv func(string) string) (string, error) {
	value = strings.TrimSpace(value)
	if value == "" && getenv != nil {
		value = strings.TrimSpace(getenv(EnvTSIGSecret))
	}
	if file == "" {
		return value, nil
	}
	if value != "" {
		return "", fmt.Errorf("--rfc2136-tsig-secret-file is set together with --rfc2136-tsig-secret (or %s): choose one", EnvTSIGSecret)
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return "", fmt.Errorf("--rfc2136-tsig-secret-file %s: %v", file, pe.Err)
		}
		return "", fmt.Errorf("--rfc2136-tsig-secret-file %s: cannot read it", file)
	}
	text := strings.TrimSpace(string(raw))
	if m := keyStatementSecret.FindStringSubmatch(text); m != nil {
		text = strings.TrimSpace(m[1])
	}
	if text == "" {
		return "", fmt.Errorf("--rfc2136-tsig-secret-file %s: no secret in it", file)
	}
	if _, err := base64.StdEncoding.DecodeString(text); err != nil {
		return "", fmt.Errorf("--rfc2136-tsig-secret-file %s: the secret is not valid base64 (the content is not shown)", file)
	}
	return text, nil
}
