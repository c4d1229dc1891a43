package txt

import (
	"bytes"
	"compress/gzip"
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"errors"
	"io"
)

// nonceSize is the AES-GCM standard nonce length.
const nonceSize = 12

// encryptText returns base64(nonce ‖ AES-256-GCM(gzip(plain))). external-dns gzips the label string
// before sealing it and, since it reads with the same assumption, a value sealed without gzip would
// look unowned to it; so we gzip too, with the same settings, for byte-identical output.
func encryptText(key, nonce []byte, plain string) (string, error) {
	gcm, err := newGCM(key)
	if err != nil {
		return "", err
	}
	if len(nonce) != gcm.NonceSize() {
		return "", errors.New("wrong nonce length")
	}
	data, err := gzipBytes([]byte(plain))
	if err != nil {
		return "", err
	}
	sealed := gcm.Seal(append([]byte(nil), nonce...), nonce, data, nil)
	return base64.StdEncoding.EncodeToString(sealed), nil
}

// decryptText opens a value written by encryptText. It also accepts a sealed plain string without gzip
// (the form the behaviour reference describes), so either writer's values are read.
func decryptText(key []byte, text string) (plain string, nonce []byte, err error) {
	gcm, err := newGCM(key)
	if err != nil {
		return "", nil, err
	}
	data, err := base64.StdEncoding.DecodeString(text)
	if err != nil {
		return "", nil, err
	}
	if len(data) <= gcm.NonceSize() {
		return "", nil, errors.New("encrypted value too short")
	}
	nonce, sealed := data[:gcm.NonceSize()], data[gcm.NonceSize():]
	opened, err := gcm.Open(nil, nonce, sealed, nil)
	if err != nil {
		return "", nil, err
	}
	if unzipped, err := gunzipBytes(opened); err == nil {
		opened = unzipped
	}
	return string(opened), nonce, nil
}

func newGCM(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// gzipBytes compresses as external-dns does (best compression, a flush, then close), since the flush
// adds bytes and we want identical ciphertext for identical input.
func gzipBytes(data []byte) ([]byte, error) {
	var b bytes.Buffer
	gz, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := gz.Write(data); err != nil {
		return nil, err
	}
	if err := gz.Flush(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func gunzipBytes(data []byte) ([]byte, error) {
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	defer gz.Close()
	return io.ReadAll(gz)
}
