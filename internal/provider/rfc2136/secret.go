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

// LoadKerberosPassword returns the GSS-TSIG password from the flag value (--rfc2136-kerberos-password,
// or EXTERNAL_DNS_RFC2136_KERBEROS_PASSWORD, which sets the flag), else the file
// (--rfc2136-kerberos-password-file; a final newline is dropped). Giving both is an error. No error
// ever contains the password.
func LoadKerberosPassword(value, file string) (string, error) {
	if file == "" {
		return value, nil
	}
	if value != "" {
		return "", errors.New("--rfc2136-kerberos-password-file is set together with --rfc2136-kerberos-password (or EXTERNAL_DNS_RFC2136_KERBEROS_PASSWORD): choose one")
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("--rfc2136-kerberos-password-file %s: %v", file, unwrapPath(err))
	}
	password := strings.TrimRight(string(raw), "\r\n")
	if password == "" {
		return "", fmt.Errorf("--rfc2136-kerberos-password-file %s: the file is empty", file)
	}
	return password, nil
}

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
