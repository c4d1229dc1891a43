package txt

import (
	"crypto/rand"
	"encoding/base64"
	"io"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// ownership is what one ownership TXT says, parsed once when it enters the cache. Its canonical
// plain text and its nonce are read off the labels when a write needs them (plain, nonce) rather than
// kept beside them: the cache holds one per owned record, and the two strings made it 48 bytes
// instead of 16 (issue 15).
//
// It also holds the TXT as listed when its entry keeps no endpoint (the common case; see compact.go).
// Those fields sit here, not in a struct of their own, so that they share one word of padding with
// encrypted: 48 bytes in all, where a struct of them made it 64.
type ownership struct {
	labels endpoint.Labels // persisted labels, plus the nonce label when the value was encrypted
	// The listed TXT's name, value and TTL; see compactTXT.
	name, value string
	ttl         uint32
	// noLabels: the listed TXT had an empty label map (newState gives every listed record without
	// labels one), not a nil one.
	noLabels  bool
	encrypted bool // the value was encrypted (its nonce is the nonce label)
}

// plain is the canonical plain label string, to compare with what we would write.
func (o *ownership) plain() string { return serializeLabels(o.labels) }

// nonce is the base64 nonce of an encrypted value; "" for a plain one.
func (o *ownership) nonce() string {
	if !o.encrypted {
		return ""
	}
	return o.labels[endpoint.TxtEncryptionNonce]
}

// codec turns labels into TXT values and back.
type codec struct {
	key     []byte    // nil: no decryption on read
	encrypt bool      // encrypt new values
	rand    io.Reader // nonce source; crypto/rand outside tests
}

// decode reads one TXT target. It returns nil for anything that is not an external-dns ownership
// value, which then stays visible as an ordinary record. With a key, decryption is tried first and the
// plain form is the fallback, so plain and encrypted values can coexist during a switch.
func (c codec) decode(target string) *ownership {
	text := unquote(target)
	if c.key != nil {
		if plain, nonce, err := decryptText(c.key, text); err == nil {
			labels, ok := parseLabels(plain)
			if !ok {
				return nil
			}
			labels[endpoint.TxtEncryptionNonce] = base64.StdEncoding.EncodeToString(nonce)
			return &ownership{labels: labels, encrypted: true}
		}
	}
	if !strings.Contains(text, heritageToken) {
		return nil // cheap exit for SPF, DKIM and other foreign TXTs
	}
	labels, ok := parseLabels(text)
	if !ok {
		return nil
	}
	return &ownership{labels: labels}
}

// decodeRecord finds the ownership value among a TXT record's targets, and returns it with the target
// it was read from. external-dns reads only the first target; scanning all of them also recognises a
// record set a provider merged with other text.
func (c codec) decodeRecord(e *endpoint.Endpoint) (*ownership, string) {
	if e.RecordType != endpoint.RecordTypeTXT {
		return nil, ""
	}
	for _, t := range e.Targets {
		if own := c.decode(t); own != nil {
			return own, t
		}
	}
	return nil, ""
}

// encode returns the quoted TXT value for labels. prev is the ownership TXT currently stored under the
// same name, if any. An encrypted value reuses prev's nonce only when the plain text is unchanged: that
// gives the identical value (no churn) without ever sealing two different texts under one GCM nonce,
// which would leak the authentication key. The nonce label external-dns keeps on records was read from
// that same TXT, so it names the same nonce.
func (c codec) encode(labels endpoint.Labels, prev *ownership) (string, error) {
	plain := serializeLabels(labels)
	if !c.encrypt {
		return quote(plain), nil
	}
	var nonce []byte
	if prev != nil && prev.nonce() != "" && prev.plain() == plain {
		if n, err := base64.StdEncoding.DecodeString(prev.nonce()); err == nil && len(n) == nonceSize {
			nonce = n
		}
	}
	if nonce == nil {
		nonce = make([]byte, nonceSize)
		if _, err := io.ReadFull(c.rand, nonce); err != nil {
			return "", err
		}
	}
	sealed, err := encryptText(c.key, nonce, plain)
	if err != nil {
		return "", err
	}
	return quote(sealed), nil
}

// sameAs reports whether prev already holds what encode would write for labels, so no write is needed.
func (c codec) sameAs(labels endpoint.Labels, prev *ownership) bool {
	return prev != nil && (prev.nonce() != "") == c.encrypt && prev.plain() == serializeLabels(labels)
}

func newCodec(key []byte, encrypt bool) codec {
	return codec{key: key, encrypt: encrypt, rand: rand.Reader}
}
