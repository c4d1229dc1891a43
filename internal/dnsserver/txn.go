package dnsserver

import (
	"fmt"
	"slices"
	"strings"

	"github.com/miekg/dns"
)

// Txn is one batch of changes to the dynamic records of a view. Each Replace is checked on its own and
// either applied to the batch or refused with an error; when the batch ends, everything it applied
// becomes visible to queries at once, with a new SOA serial.
type Txn struct {
	base    *snapshot
	touched map[string]*node // new nodes by name; nil = the name is gone
}

// lookup returns the node of a name as the batch sees it.
func (tx *Txn) lookup(name string) *node {
	if n, ok := tx.touched[name]; ok {
		return n
	}
	return tx.base.names.get(name)
}

// copyNode returns a private copy of the node at name (new if absent), recorded in the batch.
func (tx *Txn) copyNode(name string) *node {
	c := node{name: name}
	if n := tx.lookup(name); n != nil {
		c = *n
	}
	tx.touched[name] = &c
	return &c
}

// Get returns the dynamic records of (name, type), or nil.
func (tx *Txn) Get(name string, rrtype uint16) []dns.RR {
	n := tx.lookup(dns.CanonicalName(name))
	if n == nil {
		return nil
	}
	return findSet(n.dynamic, rrtype)
}

// Replace sets the dynamic records of (name, type) to rrs; an empty rrs deletes them. It refuses a
// name outside the server's zones, SOA and NS at a zone apex (the server owns those), a type the zone
// files already hold at the name, a CNAME beside other data (RFC 1034 §3.6.2), and records whose
// owner, type or class do not match. A refused change leaves the batch as it was.
func (tx *Txn) Replace(name string, rrtype uint16, rrs []dns.RR) error {
	cn, err := canonicalName(name)
	if err != nil {
		return fmt.Errorf("name %q: %v", name, err)
	}
	return tx.set(cn, rrtype, rrs, false)
}

// set replaces the dynamic (or, when building from zone files, the static) records of a canonical
// name and type.
func (tx *Txn) set(cn string, rrtype uint16, rrs []dns.RR, static bool) error {
	z := tx.base.zoneOf(cn)
	if z == nil {
		return fmt.Errorf("name %s is not in any zone of this server (%s)", strings.TrimSuffix(cn, "."), zoneList(tx.base))
	}
	if cn == z.name && (rrtype == dns.TypeSOA || rrtype == dns.TypeNS) {
		return fmt.Errorf("the %s records of the zone apex %s come from the server configuration", dns.TypeToString[rrtype], cn)
	}
	switch rrtype {
	case dns.TypeNone, dns.TypeANY, dns.TypeAXFR, dns.TypeIXFR, dns.TypeOPT, dns.TypeTSIG:
		return fmt.Errorf("type %s cannot be stored", dns.TypeToString[rrtype])
	}
	for _, rr := range rrs {
		h := rr.Header()
		if !strings.EqualFold(h.Name, cn) || h.Rrtype != rrtype || h.Class != dns.ClassINET {
			return fmt.Errorf("record %q does not belong to %s %s", rr.String(), cn, dns.TypeToString[rrtype])
		}
	}
	cur := tx.lookup(cn)
	if len(rrs) > 0 && cur != nil {
		for _, s := range cur.static {
			if s.typ == rrtype && !static {
				return fmt.Errorf("%s %s is held by a zone file", strings.TrimSuffix(cn, "."), dns.TypeToString[rrtype])
			}
		}
		for _, s := range cur.merged {
			if s.typ == rrtype {
				continue
			}
			if s.typ == dns.TypeCNAME || rrtype == dns.TypeCNAME {
				return fmt.Errorf("a CNAME cannot share the name %s with other data (%s exists)", strings.TrimSuffix(cn, "."), dns.TypeToString[s.typ])
			}
		}
	}
	var old []dns.RR
	if cur != nil {
		old = findSet(cur.dynamic, rrtype)
		if static {
			old = findSet(cur.static, rrtype)
		}
	}
	if sameRecords(old, rrs) {
		return nil // nothing changes: no new snapshot, no new serial
	}
	hadData := cur != nil && cur.hasData()
	n := tx.copyNode(cn)
	sets := &n.dynamic
	if static {
		sets = &n.static
	}
	*sets = slices.DeleteFunc(slices.Clone(*sets), func(s rrset) bool { return s.typ == rrtype })
	if len(rrs) > 0 {
		*sets = append(*sets, rrset{typ: rrtype, rrs: slices.Clone(rrs)})
	}
	n.remerge()
	tx.adjustAncestors(cn, z.name, hadData, n.hasData())
	tx.dropIfEmpty(cn, z.name)
	return nil
}

func findSet(sets []rrset, t uint16) []dns.RR {
	for _, s := range sets {
		if s.typ == t {
			return s.rrs
		}
	}
	return nil
}

// sameRecords reports whether two record lists hold the same records (TTL included), in any order.
func sameRecords(a, b []dns.RR) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		found := false
		for _, y := range b {
			if dns.IsDuplicate(x, y) && x.Header().Ttl == y.Header().Ttl {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// adjustAncestors keeps the below counts of the names between name and the apex in step when name
// gains or loses its data.
func (tx *Txn) adjustAncestors(name, apex string, had, has bool) {
	if had == has {
		return
	}
	delta := 1
	if had {
		delta = -1
	}
	for p := name; p != apex; {
		p = parent(p)
		a := tx.copyNode(p)
		a.below += delta
		tx.dropIfEmpty(p, apex)
	}
}

// dropIfEmpty removes a name that has neither data nor names below it (never an apex).
func (tx *Txn) dropIfEmpty(name, apex string) {
	n := tx.lookup(name)
	if name != apex && n != nil && !n.hasData() && n.below == 0 {
		tx.touched[name] = nil
	}
}

// commit builds the next snapshot, or returns nil when the batch changed nothing.
func (tx *Txn) commit() *snapshot {
	if len(tx.touched) == 0 {
		return nil
	}
	serial := tx.base.serial + 1
	names := tx.base.names.edit()
	for name, n := range tx.touched {
		if n == nil {
			names.delete(name)
		} else {
			names.set(n)
		}
	}
	next := &snapshot{serial: serial, names: names.done()}
	for _, z := range tx.base.zones {
		next.zones = append(next.zones, z.withSerial(serial))
	}
	return next
}

func zoneList(s *snapshot) string {
	names := make([]string, len(s.zones))
	for i, z := range s.zones {
		names[i] = strings.TrimSuffix(z.name, ".")
	}
	return strings.Join(names, ", ")
}
