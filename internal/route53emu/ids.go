package route53emu

import (
	"crypto/rand"
	"fmt"
	"strings"
)

const idAlphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"

// newID returns prefix plus 20 random uppercase alphanumerics, the shape of
// modern zone ("Z…") and change ("C…") ids.
func newID(prefix string) string {
	return prefix + randomString(20, idAlphabet)
}

func randomString(n int, alphabet string) string {
	buf := make([]byte, n)
	_, _ = rand.Read(buf)
	for i, b := range buf {
		buf[i] = alphabet[int(b)%len(alphabet)]
	}
	return string(buf)
}

// newRequestID returns a random UUID v4, the shape of AWS request ids.
func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// bareID strips any "/hostedzone/" or "/change/" prefix by cutting at the last
// slash, as the Go SDK does; the emulator accepts both forms everywhere.
func bareID(id string) string {
	if i := strings.LastIndexByte(id, '/'); i >= 0 {
		return id[i+1:]
	}
	return id
}
