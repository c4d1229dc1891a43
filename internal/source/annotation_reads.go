package source

import (
	"slices"
	"sort"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// Nothing a user sets may be ignored silently, on any kind. The Service and Ingress paths list what
// they do not read (unread.go); the kinds built on the Kernel (custom resources, Gateway routes) differ
// in what they read, sometimes by flag or by object, so there each object's lookups are recorded and,
// once its source has read it, every annotation under our prefixes that nothing looked up becomes a
// problem naming it.

// readBit is the bit of a known key in objectInput.read; providerSpecificRead marks that the object's
// provider-specific annotations (aws-, cloudflare-, ...) were copied to properties.
func readBit(key string) uint32 {
	if i := slices.Index(knownKeys, key); i >= 0 {
		return 1 << i
	}
	return 0
}

// recordsMade marks that the object's record metadata was read (Object.Meta): only then are its
// unread annotations reported, since an object that publishes nothing yet (no address from its
// controller) has not read what it will read once it does.
const (
	providerSpecificRead uint32 = 1 << 31
	recordsMade          uint32 = 1 << 30
)

// readCheck is one object whose unread annotations are reported when its problems are collected.
type readCheck struct {
	kind   string
	inputs []*objectInput // one per time the source read the object (once per parent, per view)
}

// checkReads asks for o's unread annotations to be reported as problems of a kind (the API kind, for
// the message) when the problems are collected.
func (l *problemList) checkReads(o *objectInput, kind string) {
	if l.reads == nil {
		l.reads = map[endpoint.ObjectRef]*readCheck{}
	}
	c := l.reads[o.ref]
	if c == nil {
		c = &readCheck{kind: kind}
		l.reads[o.ref] = c
	}
	c.inputs = append(c.inputs, o)
}

// reportUnreadLookups turns the pending read checks into problems, once.
func (l *problemList) reportUnreadLookups() {
	if len(l.reads) == 0 {
		return
	}
	refs := make([]endpoint.ObjectRef, 0, len(l.reads))
	for ref := range l.reads {
		refs = append(refs, ref)
	}
	sort.Slice(refs, func(i, j int) bool { return refs[i].String() < refs[j].String() })
	reported := map[string]bool{}
	for _, p := range l.items {
		reported[p.Object.String()+"\x00"+p.Field] = true
	}
	for _, ref := range refs {
		c := l.reads[ref]
		var read uint32
		for _, in := range c.inputs {
			read |= in.read
		}
		if read&recordsMade == 0 {
			continue
		}
		c.inputs[0].reportUnreadBy(c.kind, read, func(field string) bool { return reported[ref.String()+"\x00"+field] })
	}
	l.reads = nil
}

// reportUnreadBy reports each annotation under our prefixes that no lookup in read covered, and each
// key nobody knows, skipping fields already reported.
func (o *objectInput) reportUnreadBy(kind string, read uint32, reported func(field string) bool) {
	if len(o.annotations) == 0 {
		return
	}
	keys := make([]string, 0, len(o.annotations))
	for k := range o.annotations {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		suffix, ok := o.reader.splitKey(o.annotations, k)
		field := annotationField(k)
		if !ok || reported(field) {
			continue
		}
		providerKey := slices.ContainsFunc(providerSpecificPrefixes, func(p struct{ annotation, property string }) bool {
			return strings.HasPrefix(suffix, p.annotation)
		})
		switch bit := readBit(suffix); {
		case bit != 0 && read&bit == 0, providerKey && read&providerSpecificRead == 0,
			slices.Contains(externalDNSOnlyKeys, suffix):
			o.problem(field, o.annotations[k], "has no effect on a "+kind+": its source does not read it here (external-dns does not either)")
		case bit == 0 && !providerKey && slices.Contains(o.reader.prefixes, PrefixAlpha):
			o.problem(field, o.annotations[k], "unknown annotation: neither zonekeeper nor external-dns reads "+suffix)
		}
	}
}
