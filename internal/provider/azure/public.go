package azure

import (
	"context"
	"fmt"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/dns/armdns"
)

// publicDNS is Azure DNS through armdns (api-version 2018-05-01), the calls external-dns's
// --provider=azure makes: Zones_ListByResourceGroup, RecordSets_ListAllByDnsZone,
// RecordSets_CreateOrUpdate, RecordSets_Delete.
type publicDNS struct {
	zc *armdns.ZonesClient
	rc *armdns.RecordSetsClient
	rg string
}

func (b *publicDNS) types() []string { return []string{"A", "AAAA", "CNAME", "MX", "NS", "TXT"} }

func (b *publicDNS) zones(ctx context.Context) ([]zoneRef, error) {
	var out []zoneRef
	for p := b.zc.NewListByResourceGroupPager(b.rg, nil); p.More(); {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, z := range page.Value {
			if z != nil && z.Name != nil {
				var n int64
				if z.Properties != nil {
					n = deref(z.Properties.NumberOfRecordSets)
				}
				out = append(out, zoneRef{name: strings.ToLower(*z.Name), id: deref(z.ID), count: n})
			}
		}
	}
	return out, nil
}

func (b *publicDNS) recordSets(ctx context.Context, zone string) ([]recordSet, int64, error) {
	var out []recordSet
	var total int64
	for p := b.rc.NewListAllByDNSZonePager(b.rg, zone, nil); p.More(); {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, 0, err
		}
		total += int64(len(page.Value))
		for _, r := range page.Value {
			if r == nil || r.Name == nil || r.Type == nil || r.Properties == nil {
				continue
			}
			rs := recordSet{name: *r.Name, typ: strings.TrimPrefix(*r.Type, "Microsoft.Network/dnszones/"), ttl: deref(r.Properties.TTL)}
			pr := r.Properties
			switch rs.typ {
			case "A":
				for _, a := range pr.ARecords {
					rs.targets = append(rs.targets, deref(a.IPv4Address))
				}
			case "AAAA":
				for _, a := range pr.AaaaRecords {
					rs.targets = append(rs.targets, deref(a.IPv6Address))
				}
			case "CNAME":
				if pr.CnameRecord != nil {
					rs.targets = append(rs.targets, deref(pr.CnameRecord.Cname))
				}
			case "MX":
				for _, m := range pr.MxRecords {
					rs.targets = append(rs.targets, fmt.Sprintf("%d %s", deref(m.Preference), deref(m.Exchange)))
				}
			case "NS":
				for _, n := range pr.NsRecords {
					rs.targets = append(rs.targets, deref(n.Nsdname))
				}
			case "TXT":
				for _, t := range pr.TxtRecords {
					var s strings.Builder
					for _, v := range t.Value {
						s.WriteString(deref(v))
					}
					rs.targets = append(rs.targets, s.String())
				}
			default:
				continue
			}
			out = append(out, rs)
		}
	}
	return out, total, nil
}

func (b *publicDNS) put(ctx context.Context, zone string, rs recordSet) error {
	p := &armdns.RecordSetProperties{TTL: ptr(rs.ttl)}
	for _, t := range rs.targets {
		switch rs.typ {
		case "A":
			p.ARecords = append(p.ARecords, &armdns.ARecord{IPv4Address: ptr(t)})
		case "AAAA":
			p.AaaaRecords = append(p.AaaaRecords, &armdns.AaaaRecord{IPv6Address: ptr(t)})
		case "CNAME":
			p.CnameRecord = &armdns.CnameRecord{Cname: ptr(t)}
		case "MX":
			pref, host, err := parseMX(t)
			if err != nil {
				return err
			}
			p.MxRecords = append(p.MxRecords, &armdns.MxRecord{Preference: ptr(pref), Exchange: ptr(host)})
		case "NS":
			p.NsRecords = append(p.NsRecords, &armdns.NsRecord{Nsdname: ptr(t)})
		case "TXT":
			p.TxtRecords = append(p.TxtRecords, &armdns.TxtRecord{Value: []*string{ptr(t)}})
		default:
			return fmt.Errorf("record type %s is not written to Azure DNS", rs.typ)
		}
	}
	_, err := b.rc.CreateOrUpdate(ctx, b.rg, zone, rs.name, armdns.RecordType(rs.typ), armdns.RecordSet{Properties: p}, nil)
	return err
}

func (b *publicDNS) remove(ctx context.Context, zone, name, typ string) error {
	_, err := b.rc.Delete(ctx, b.rg, zone, name, armdns.RecordType(typ), nil)
	return err
}
