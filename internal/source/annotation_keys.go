package source

// AnnotationKeys returns every annotation key (without prefix) that zonekeeper or external-dns reads
// on some kind: the record keys, the provider-specific ones zonekeeper maps to properties, and the
// keys external-dns knows that zonekeeper reads on other kinds only. The annotation walks set each of
// them on every kind.
func AnnotationKeys() []string {
	var out []string
	for _, keys := range [][]string{knownKeys, awsAnnotations, cloudflareAnnotations, externalDNSOnlyKeys} {
		out = append(out, keys...)
	}
	return out
}
