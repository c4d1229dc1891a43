package cloudflare

import (
	"context"
	"fmt"
	"slices"

	"github.com/cloudflare/cloudflare-go/v7/addressing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// Regional Services (Data Localization Suite): with --cloudflare-regional-services or a
// --cloudflare-region-key, each A, AAAA and CNAME name has a regional hostname with the record's
// region key (the cloudflare-region-key annotation, else --cloudflare-region-key; none: no regional
// hostname), as external-dns keeps them.

// regionalTypes are the types a regional hostname applies to.
var regionalTypes = []string{endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME}

func (p *Provider) regional() bool { return p.cfg.RegionalServices || p.cfg.RegionKey != "" }

// listRegional lists a zone's regional hostnames: hostname → region key.
func (p *Provider) listRegional(ctx context.Context, z zone) (map[string]string, error) {
	var params addressing.RegionalHostnameListParams
	params.ZoneID.Value, params.ZoneID.Present = z.id, true
	res, err := p.client.Addressing.RegionalHostnames.List(ctx, params)
	if err != nil {
		return nil, fmt.Errorf("listing the regional hostnames of zone %s: %w", z.name, describeError(err))
	}
	out := map[string]string{}
	for _, h := range res.Result {
		out[h.Hostname] = h.RegionKey
	}
	return out, nil
}

// withRegionKeys sets cloudflare/region-key on the zone's A, AAAA and CNAME endpoints: the regional
// hostname's key, "" without one.
func withRegionKeys(eps []*endpoint.Endpoint, keys map[string]string) {
	for _, e := range eps {
		if slices.Contains(regionalTypes, e.RecordType) {
			e.SetProviderSpecific(propRegionKey, keys[e.DNSName])
		}
	}
}

// regionalChange is what one record set asks of its name's regional hostname.
type regionalChange struct {
	change int
	key    string // "" asks for none
}

// applyRegional brings a zone's regional hostnames to what its applied changes ask: a name whose
// record sets are deleted loses its regional hostname unless another change keeps one. Refusals are
// reported per change; another failure is returned.
func (p *Provider) applyRegional(ctx context.Context, z zone, wants map[string][]regionalChange, refused func(int, error)) error {
	if len(wants) == 0 {
		return nil
	}
	current, err := p.regionalState(ctx, z)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(wants))
	for n := range wants {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		var want *regionalChange
		for i, w := range wants[name] {
			switch {
			case w.key == "":
			case want == nil:
				want = &wants[name][i]
			case want.key != w.key:
				refused(w.change, fmt.Errorf("cloudflare-region-key %q conflicts with %q of another record set of %s", w.key, want.key, name))
			}
		}
		have, exists := current[name]
		var err error
		switch {
		case want == nil && exists:
			var params addressing.RegionalHostnameDeleteParams
			params.ZoneID.Value, params.ZoneID.Present = z.id, true
			_, err = p.client.Addressing.RegionalHostnames.Delete(ctx, name, params)
			if err = describeError(err); err == nil || notFound(err) {
				err = nil
				delete(current, name)
			}
		case want == nil || (exists && have == want.key):
		case !exists:
			var params addressing.RegionalHostnameNewParams
			params.ZoneID.Value, params.ZoneID.Present = z.id, true
			params.Hostname.Value, params.Hostname.Present = name, true
			params.RegionKey.Value, params.RegionKey.Present = want.key, true
			_, err = p.client.Addressing.RegionalHostnames.New(ctx, params)
			if err = describeError(err); err == nil {
				current[name] = want.key
			}
		default:
			var params addressing.RegionalHostnameEditParams
			params.ZoneID.Value, params.ZoneID.Present = z.id, true
			params.RegionKey.Value, params.RegionKey.Present = want.key, true
			_, err = p.client.Addressing.RegionalHostnames.Edit(ctx, name, params)
			if err = describeError(err); err == nil {
				current[name] = want.key
			}
		}
		if err == nil {
			continue
		}
		if !refusal(err) {
			return err
		}
		for _, w := range wants[name] {
			refused(w.change, fmt.Errorf("regional hostname %s: %w", name, err))
		}
	}
	return nil
}

// regionalState returns the zone's regional hostnames as last listed or written.
func (p *Provider) regionalState(ctx context.Context, z zone) (map[string]string, error) {
	p.mu.Lock()
	m, ok := p.regionalByZone[z.id]
	p.mu.Unlock()
	if ok {
		return m, nil
	}
	m, err := p.listRegional(ctx, z)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	if p.regionalByZone == nil {
		p.regionalByZone = map[string]map[string]string{}
	}
	p.regionalByZone[z.id] = m
	p.mu.Unlock()
	return m, nil
}
