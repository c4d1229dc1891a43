package azure

import (
	"context"
	"fmt"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/privatedns/armprivatedns"
)

// privateDNS is Azure Private DNS through armprivatedns (api-version 2024-06-01), the calls
// external-dns's --provider=azure-private-dns makes: PrivateZones_ListByResourceGroup,
// RecordSets_List, RecordSets_CreateOrUpdate, RecordSets_Delete. Record sets a virtual network link
// registered (isAutoRegistered) are listed marked auto, so the provider refuses every change to them.
type privateDNS struct {
	zc *armprivatedns.PrivateZonesClient
	rc *armprivatedns.RecordSetsClient
	rg string
}

func (b *privateDNS) types() []string { return []string{"A", "AAAA", "CNAME", "MX", "TXT"} }

func (b *privateDNS) zones(ctx context.Context) ([]zoneRef, error) {
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

func (b *privateDNS) recordSets(ctx context.Context, zone string) ([]recordSet, int64, error) {
	var out []recordSet
	var total int64
	for p := b.rc.NewListPager(b.rg, zone, nil); p.More(); {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, 0, err
		}
		total += int64(len(page.Value))
		for _, r := range page.Value {
			if r == nil || r.Name == nil || r.Type == nil || r.Properties == nil {
				continue
			}
			rs := recordSet{name: *r.Name, typ: strings.TrimPrefix(*r.Type, "Microsoft.Network/privateDnsZones/"), ttl: deref(r.Properties.TTL),
				auto: deref(r.Properties.IsAutoRegistered)}
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

func (b *privateDNS) put(ctx context.Context, zone string, rs recordSet) error {
	p := &armprivatedns.RecordSetProperties{TTL: ptr(rs.ttl)}
	for _, t := range rs.targets {
		switch rs.typ {
		case "A":
			p.ARecords = append(p.ARecords, &armprivatedns.ARecord{IPv4Address: ptr(t)})
		case "AAAA":
			p.AaaaRecords = append(p.AaaaRecords, &armprivatedns.AaaaRecord{IPv6Address: ptr(t)})
		case "CNAME":
			p.CnameRecord = &armprivatedns.CnameRecord{Cname: ptr(t)}
		case "MX":
			pref, host, err := parseMX(t)
			if err != nil {
				return err
			}
			p.MxRecords = append(p.MxRecords, &armprivatedns.MxRecord{Preference: ptr(pref), Exchange: ptr(host)})
		case "TXT":
			p.TxtRecords = append(p.TxtRecords, &armprivatedns.TxtRecord{Value: []*string{ptr(t)}})
		default:
			return fmt.Errorf("record type %s is not written to Azure Private DNS", rs.typ)
		}
	}
	_, err := b.rc.CreateOrUpdate(ctx, b.rg, zone, armprivatedns.RecordType(rs.typ), rs.name, armprivatedns.RecordSet{Properties: p}, nil)
	return err
}

func (b *privateDNS) remove(ctx context.Context, zone, name, typ string) error {
	_, err := b.rc.Delete(ctx, b.rg, zone, armprivatedns.RecordType(typ), name, nil)
	return err
}
