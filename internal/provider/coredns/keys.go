package coredns

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// keyLayout turns DNS names into etcd keys and back, in the SkyDNS layout CoreDNS reads: the prefix,
// then the labels of the name in reverse order, then one free last element per value (the record id).
//
//	www.example.com A 10.0.0.1  →  /skydns/com/example/www/<id>
type keyLayout struct {
	prefix string // always ends with "/"
}

// namePath returns the key of a name without a record id: "/skydns/com/example/www". Entries of
// the name live one element below it.
func (l keyLayout) namePath(name string) string {
	labels := strings.Split(name, ".")
	var b strings.Builder
	b.Grow(len(l.prefix) + len(name) + 1)
	b.WriteString(l.prefix)
	for i := len(labels) - 1; i >= 0; i-- {
		b.WriteString(labels[i])
		if i > 0 {
			b.WriteByte('/')
		}
	}
	return b.String()
}

// entryKey is the key of one value of a name: the name path plus the record id.
func (l keyLayout) entryKey(name, id string) string {
	return l.namePath(name) + "/" + id
}

// addRecord adds the key and value that store one record of a name: below the name, with the
// record's stable id, so several targets can share the name and an A or AAAA query (which reads
// everything below the name) finds it.
//
// A CNAME stays there too, as external-dns stores it, although CoreDNS answers a CNAME-type query only
// from the name's own key. Storing it at that key as well was tried: external-dns then reads the two
// keys as a duplicated target and rewrites the record, so a rollback to external-dns would churn; and
// storing it only there would hide it from A queries wherever a TXT sits below the same name (external-
// dns's legacy ownership records). Resolvers ask for A/AAAA, which answer the CNAME.
func (l keyLayout) addRecord(into map[string][]byte, name string, r record) {
	into[l.entryKey(name, recordID(r.Type, r.Target))] = r.encode(1)
}

// apexMirrorDir is where CoreDNS looks first when the zone apex itself is queried for A or AAAA
// ("<zone path>/dns/apex/"). Without entries there it answers with every address of the zone.
func (l keyLayout) apexMirrorDir(zone string) string {
	return l.namePath(zone) + "/dns/apex/"
}

// nameOf maps a key back to the owner name, the way external-dns reads its own keys: reverse the
// path elements below the prefix and drop `targetstrip` leading labels (the record id). It returns
// false for keys outside the prefix or with nothing left after stripping.
func (l keyLayout) nameOf(key string, targetStrip int) (string, bool) {
	rest, ok := strings.CutPrefix(key, l.prefix)
	if !ok || rest == "" {
		return "", false
	}
	parts := strings.Split(strings.Trim(rest, "/"), "/")
	if targetStrip < 0 || targetStrip >= len(parts) {
		return "", false
	}
	parts = parts[:len(parts)-targetStrip]
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	for _, p := range parts {
		if p == "" {
			return "", false
		}
	}
	return strings.ToLower(strings.Join(parts, ".")), true
}

// recordID is the stable id of one value: the first 8 hex digits of SHA-256 over the record type and
// the canonical target. Deriving it from the data, instead of drawing it at random as external-dns
// does, keeps keys stable across restarts without remembering them anywhere, and makes a repeated
// write of the same record a no-op.
func recordID(recordType, target string) string {
	sum := sha256.Sum256([]byte(recordType + "\x00" + target))
	return hex.EncodeToString(sum[:4])
}

// normalizePrefix makes the prefix absolute and slash-terminated ("skydns" → "/skydns/"), since it is
// concatenated directly with the reversed name.
func normalizePrefix(p string) string {
	p = strings.TrimSpace(p)
	if p == "" {
		p = DefaultPrefix
	}
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	if !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return p
}
