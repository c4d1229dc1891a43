package source

// KeyTarget is the target annotation's key, without prefix.
const KeyTarget = keyTarget

// Annotation returns the value of the annotation key (without prefix) and the field that names it
// in a Problem ("metadata.annotations[external-dns.alpha.kubernetes.io/target]"); ok is false when
// the object does not carry it. For kinds that must say that an annotation is not read on them.
func (o *Object) Annotation(key string) (value, field string, ok bool) {
	v, full, ok := o.in.lookup(key)
	if !ok {
		return "", "", false
	}
	return v, annotationField(full), true
}
