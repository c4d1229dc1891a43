package txt

import (
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// Config holds the registry settings; each field matches an external-dns flag.
type Config struct {
	// OwnerID is --txt-owner-id. Required.
	OwnerID string
	// OldOwnerID is --migrate-from-txt-owner: that owner's records and ownership TXTs count as ours, and
	// the TXTs are rewritten with OwnerID as the plan updates the records.
	OldOwnerID string
	// Prefix (--txt-prefix) and Suffix (--txt-suffix) wrap the first label of TXT names. Either may
	// contain %{record_type}. They are mutually exclusive.
	Prefix string
	Suffix string
	// WildcardReplacement (--txt-wildcard-replacement) replaces a leading "*" label in TXT names.
	WildcardReplacement string
	// EncryptEnabled (--txt-encrypt-enabled) encrypts new TXT values with EncryptKey.
	EncryptEnabled bool
	// EncryptKey (--txt-encrypt-aes-key): 32 raw bytes or the base64 of 32 bytes. When set, values are
	// decrypted on read even if EncryptEnabled is false, so encryption can be switched off without
	// losing ownership.
	EncryptKey []byte
	// ManagedRecordTypes (--managed-record-types) decides which owned records get the txt/force-update
	// property when their new-format TXT is missing. Empty means A, AAAA and CNAME.
	ManagedRecordTypes []string
	// CacheInterval (--txt-cache-interval) lets Records serve the cache while it is younger than this.
	// 0 lists the provider on every Records call.
	CacheInterval time.Duration
}

// defaultManagedRecordTypes is external-dns's default for --managed-record-types.
var defaultManagedRecordTypes = []string{endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME}

// ParseAESKey accepts an AES-256 key given as 32 raw bytes or as standard base64 of 32 bytes, the two
// forms --txt-encrypt-aes-key takes. A 32-character string is always taken raw (base64 of 32 bytes is
// 44 characters, so the forms cannot be confused).
func ParseAESKey(s string) ([]byte, error) {
	if len(s) == 32 {
		return []byte(s), nil
	}
	key, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(key) != 32 {
		return nil, errors.New("the AES key must be 32 bytes long, raw or base64-encoded")
	}
	return key, nil
}

// validate checks the settings and returns the decoded key (nil when none is set).
func (c Config) validate() ([]byte, error) {
	if c.OwnerID == "" {
		return nil, errors.New("txt registry: the owner id must not be empty")
	}
	if c.Prefix != "" && c.Suffix != "" {
		return nil, errors.New("txt registry: prefix and suffix are mutually exclusive")
	}
	var key []byte
	if len(c.EncryptKey) > 0 {
		k, err := ParseAESKey(string(c.EncryptKey))
		if err != nil {
			return nil, fmt.Errorf("txt registry: %w", err)
		}
		key = k
	}
	if c.EncryptEnabled && key == nil {
		return nil, errors.New("txt registry: encryption is enabled but no AES key is set")
	}
	if c.CacheInterval < 0 {
		return nil, errors.New("txt registry: the cache interval must not be negative")
	}
	return key, nil
}
