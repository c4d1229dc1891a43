package rfc2136

import (
	"context"
	"fmt"

	"github.com/miekg/dns"

	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// maxMessage is the largest DNS message over TCP.
const maxMessage = 65535

// cnameExclusive are the types a CNAME may not share its name with, checked by prerequisite when a
// CNAME is added (DNSSEC types, which may, are left out).
var cnameExclusive = []uint16{
	dns.TypeA, dns.TypeAAAA, dns.TypeTXT, dns.TypeMX, dns.TypeSRV, dns.TypeNS, dns.TypePTR, dns.TypeCAA,
	dns.TypeNAPTR, dns.TypeDNAME, dns.TypeHINFO, dns.TypeSSHFP, dns.TypeTLSA, dns.TypeSVCB, dns.TypeHTTPS,
	dns.TypeLOC, dns.TypeSPF, dns.TypeDS, dns.TypeURI,
}

// zoneRun applies the name groups of one zone.
type zoneRun struct {
	p       *Provider
	zone    string
	conn    *conn
	reject  func(*change, error)
	applied int // name groups applied

	probed    bool  // the zone-wide REFUSED probe was sent
	probeFail error // its result
}

// applyAll sends the groups in batches of up to BatchChangeSize changes (a name's changes are never
// split). It returns an error that concerns the whole zone; the groups it did not finish are left
// with done unset.
func (z *zoneRun) applyAll(ctx context.Context, groups []*nameGroup) error {
	for start := 0; start < len(groups); {
		end, n := start, 0
		for end < len(groups) && (end == start || n+len(groups[end].changes) <= z.p.s.batch) {
			n += len(groups[end].changes)
			end++
		}
		if err := z.apply(ctx, groups[start:end]); err != nil {
			return err
		}
		start = end
	}
	return nil
}

// apply sends one batch; when the server refuses it for some of its names, it bisects.
func (z *zoneRun) apply(ctx context.Context, groups []*nameGroup) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m := z.message(groups)
	if m.Len() > maxMessage {
		if len(groups) == 1 {
			for _, c := range groups[0].changes {
				z.reject(c, fmt.Errorf("the changes to %s need an UPDATE message of %d bytes, more than DNS allows (%d)", trimDot(groups[0].fqdn), m.Len(), maxMessage))
			}
			groups[0].done = true
			return nil
		}
		return z.split(ctx, groups)
	}
	r, server, err := z.conn.exchange(ctx, m)
	if r == nil {
		return fmt.Errorf("zone %s: UPDATE: %w", trimDot(z.zone), err)
	}
	if r.Rcode == dns.RcodeSuccess && err == nil {
		for _, g := range groups {
			g.done = true
		}
		z.applied += len(groups)
		return nil
	}
	rc := z.rcodeError(r, server)
	if zoneScope(rc.Rcode, rc.TSIGError) {
		return rc
	}
	if rc.Rcode == dns.RcodeRefused {
		if probeErr := z.probe(ctx); probeErr != nil {
			return probeErr
		}
		rc.Hint = "the server refused this change: its update-policy does not let the key change this name, " +
			"or the change fails one of its checks, such as an in-zone MX or SRV target without an address (see the server's log)"
	}
	if len(groups) > 1 {
		return z.split(ctx, groups)
	}
	g := groups[0]
	if rc.Rcode == dns.RcodeYXRrset {
		rc.Hint = yxrrsetHint(g)
	}
	for _, c := range g.changes {
		z.reject(c, rc)
	}
	g.done = true
	return nil
}

func (z *zoneRun) split(ctx context.Context, groups []*nameGroup) error {
	half := len(groups) / 2
	if err := z.apply(ctx, groups[:half]); err != nil {
		return err
	}
	return z.apply(ctx, groups[half:])
}

// probe tells a REFUSED for the whole zone (allow-update does not include the key, or the update is
// unsigned) from one for some names (update-policy): an UPDATE with no changes is refused only in the
// first case. It is sent at most once per zone and call.
func (z *zoneRun) probe(ctx context.Context) error {
	if z.probed {
		return z.probeFail
	}
	z.probed = true
	m := new(dns.Msg)
	m.SetUpdate(z.zone)
	r, server, err := z.conn.exchange(ctx, m)
	switch {
	case r == nil:
		z.probeFail = fmt.Errorf("zone %s: UPDATE: %w", trimDot(z.zone), err)
	case r.Rcode != dns.RcodeSuccess || err != nil:
		rc := z.rcodeError(r, server)
		if rc.Rcode == dns.RcodeRefused {
			if z.p.gss != nil {
				rc.Hint = "the zone's update-policy does not grant this Kerberos principal (BIND: grant " + z.p.gss.creds.principal() + " zonesub ANY;)"
			} else if z.p.s.key == nil {
				rc.Hint = "the zone does not accept unsigned updates (--rfc2136-insecure is set); configure its TSIG key"
			} else {
				rc.Hint = "the zone's allow-update (or update-policy) does not include this key"
			}
		}
		z.probeFail = rc
	}
	return z.probeFail
}

func (z *zoneRun) rcodeError(r *dns.Msg, server string) *RcodeError {
	rc := &RcodeError{Zone: trimDot(z.zone), Server: server, Rcode: r.Rcode, Op: "UPDATE"}
	if k := z.p.s.key; k != nil {
		rc.Key = k.name
	}
	if z.p.gss != nil {
		rc.Principal = z.p.gss.creds.principal()
	}
	if t := r.IsTsig(); t != nil && t.Error != 0 {
		rc.TSIGError = t.Error
	}
	switch {
	case rc.TSIGError != 0:
		rc.Hint = tsigHint(rc.TSIGError)
	case rc.Rcode == dns.RcodeNotAuth:
		if z.p.s.key != nil {
			rc.Hint = "the server is not authoritative for this zone, or did not accept the key (check --rfc2136-zone, the key, and the view it selects)"
		} else {
			rc.Hint = "the server is not authoritative for this zone (check --rfc2136-zone)"
		}
	case rc.Rcode == dns.RcodeServerFailure:
		rc.Hint = "the server failed to apply the update (see its log)"
	}
	return rc
}

func yxrrsetHint(g *nameGroup) string {
	for _, c := range g.changes {
		if c.action != provider.ActionDelete && c.rrtype == dns.TypeCNAME {
			return fmt.Sprintf("%s already holds other records, and a CNAME cannot share its name", trimDot(g.fqdn))
		}
	}
	return fmt.Sprintf("%s holds a CNAME, which cannot share its name with other records", trimDot(g.fqdn))
}

// message builds the UPDATE for some name groups. Per name: a delete removes the record set, an update
// removes it and adds the new records, a create adds. Prerequisites keep CNAMEs alone: an add of a
// CNAME requires that the name holds none of the other types (except those this message removes), an
// add of another type that the name holds no CNAME (unless this message removes it); a violation is
// answered YXRRSET instead of being ignored.
func (z *zoneRun) message(groups []*nameGroup) *dns.Msg {
	m := new(dns.Msg)
	m.SetUpdate(z.zone)
	for _, g := range groups {
		removed := map[uint16]bool{}
		for _, c := range g.changes {
			if c.action != provider.ActionCreate {
				removed[c.rrtype] = true
			}
		}
		var prereq []dns.RR
		need := func(t uint16) {
			if !removed[t] {
				prereq = append(prereq, &dns.ANY{Hdr: dns.RR_Header{Name: g.fqdn, Rrtype: t, Class: dns.ClassNONE}})
				removed[t] = true // once per name and type
			}
		}
		for _, c := range g.changes {
			if c.action != provider.ActionCreate {
				m.Ns = append(m.Ns, &dns.ANY{Hdr: dns.RR_Header{Name: g.fqdn, Rrtype: c.rrtype, Class: dns.ClassANY}})
			}
			if c.action == provider.ActionDelete {
				continue
			}
			if c.rrtype == dns.TypeCNAME {
				for _, t := range cnameExclusive {
					need(t)
				}
			} else {
				need(dns.TypeCNAME)
			}
			m.Ns = append(m.Ns, c.rrs...)
		}
		m.Answer = append(m.Answer, prereq...)
	}
	return m
}
