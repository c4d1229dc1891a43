package dnsserver

import (
	"fmt"
	"log/slog"
	"os"

	"github.com/miekg/dns"
)

// staticRecord is one record from a zone file with where it came from, for error messages.
type staticRecord struct {
	rr    dns.RR
	where string // "file:line"
}

// readZoneFile parses an RFC 1035 master file. Records for a zone apex's SOA and NS are skipped with a
// log line (the server synthesises those from its configuration), so an existing zone file can be
// reused as it is.
func readZoneFile(f ZoneFile, log *slog.Logger) ([]staticRecord, error) {
	fh, err := os.Open(f.Path)
	if err != nil {
		return nil, fmt.Errorf("zone file %s: %v", f.Path, err)
	}
	defer fh.Close()
	origin := ""
	if f.Origin != "" {
		origin = dns.Fqdn(f.Origin)
	}
	zp := dns.NewZoneParser(fh, origin, f.Path)
	var out []staticRecord
	for rr, ok := zp.Next(); ok; rr, ok = zp.Next() {
		if rr.Header().Class != dns.ClassINET {
			return nil, fmt.Errorf("zone file %s: %s: only class IN is served", f.Path, rr.Header().Name)
		}
		rr.Header().Name = dns.CanonicalName(rr.Header().Name)
		out = append(out, staticRecord{rr: rr, where: f.Path})
	}
	if err := zp.Err(); err != nil {
		return nil, fmt.Errorf("zone file %s: %v", f.Path, err)
	}
	return out, nil
}

// loadStatic puts zone-file records into a fresh view's batch, grouped by name and type.
func loadStatic(tx *Txn, recs []staticRecord, log *slog.Logger) error {
	type key struct {
		name string
		typ  uint16
	}
	groups := map[key][]dns.RR{}
	var order []key
	for _, r := range recs {
		h := r.rr.Header()
		z := tx.base.zoneOf(h.Name)
		if z == nil {
			return fmt.Errorf("zone file %s: %s is not in any zone of this server (%s)", r.where, h.Name, zoneList(tx.base))
		}
		if h.Name == z.name && (h.Rrtype == dns.TypeSOA || h.Rrtype == dns.TypeNS) {
			log.Info("Zone file record ignored: the server synthesises the apex SOA and NS", "file", r.where, "record", r.rr.String())
			continue
		}
		if h.Rrtype == dns.TypeNS {
			return fmt.Errorf("zone file %s: NS at %s: delegations below the apex are not supported", r.where, h.Name)
		}
		k := key{h.Name, h.Rrtype}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r.rr)
	}
	for _, k := range order {
		if err := tx.set(k.name, k.typ, groups[k], true); err != nil {
			return fmt.Errorf("zone files: %v", err)
		}
	}
	return nil
}
