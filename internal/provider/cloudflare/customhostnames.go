package cloudflare

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cloudflare/cloudflare-go/v7/custom_hostnames"
	"github.com/cloudflare/cloudflare-go/v7/option"
	"github.com/cloudflare/cloudflare-go/v7/packages/pagination"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// Custom hostnames (Cloudflare for SaaS), as external-dns v0.23 keeps them with
// --cloudflare-custom-hostnames: the cloudflare-custom-hostname annotation of an A or CNAME record
// (comma-separated) names hostnames whose custom origin server is the record's name. They are created
// with the record (SSL: DV by HTTP, ubiquitous bundle, --cloudflare-custom-hostnames-min-tls-version,
// and --cloudflare-custom-hostnames-certificate-authority unless "none"), deleted with it, and
// created or deleted when the annotation's list changes. Ownership follows the record: only the
// hostnames of records the registry lets zonekeeper change are touched, and a hostname that exists
// with another origin is refused, not taken over.

// customTypes are the record types a custom hostname follows (external-dns's set).
var customTypes = []string{endpoint.RecordTypeA, endpoint.RecordTypeCNAME}

// customPerPage is the page size of custom hostname listings (the API's largest).
const customPerPage = 50

// customHostname is one custom hostname as listed or written.
type customHostname struct {
	id, origin string
}

// customHostnamesOf returns the hostnames a property value names, sorted, without empty entries.
func customHostnamesOf(v string) []string {
	var out []string
	for _, h := range strings.Split(v, ",") {
		if h != "" && !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	slices.Sort(out)
	return out
}

// listCustom lists a zone's custom hostnames: hostname → id and origin.
func (p *Provider) listCustom(ctx context.Context, z zone) (map[string]customHostname, error) {
	out := map[string]customHostname{}
	err := eachPage(ctx, customPerPage, func(ctx context.Context, page int) (*pagination.V4PagePaginationArray[custom_hostnames.CustomHostnameListResponse], error) {
		var params custom_hostnames.CustomHostnameListParams
		params.ZoneID.Value, params.ZoneID.Present = z.id, true
		params.Page.Value, params.Page.Present = float64(page), true
		params.PerPage.Value, params.PerPage.Present = customPerPage, true
		return p.client.CustomHostnames.List(ctx, params)
	}, func(h custom_hostnames.CustomHostnameListResponse) {
		out[h.Hostname] = customHostname{id: h.ID, origin: h.CustomOriginServer}
	})
	if err != nil {
		return nil, fmt.Errorf("listing the custom hostnames of zone %s (is Cloudflare for SaaS enabled, and may the token read them?): %w", z.name, describeError(err))
	}
	return out, nil
}

// withCustomHostnames sets cloudflare/custom-hostname on the zone's A and CNAME endpoints whose name
// is the custom origin of custom hostnames: the hostnames, sorted and comma-separated.
func withCustomHostnames(eps []*endpoint.Endpoint, hs map[string]customHostname) {
	byOrigin := map[string][]string{}
	for h, c := range hs {
		byOrigin[c.origin] = append(byOrigin[c.origin], h)
	}
	for _, e := range eps {
		if names := byOrigin[e.DNSName]; len(names) > 0 && slices.Contains(customTypes, e.RecordType) {
			slices.Sort(names)
			e.SetProviderSpecific(propCustomHostname, strings.Join(names, ","))
		}
	}
}

// customChange is what one applied change asks of its custom hostnames.
type customChange struct {
	change       int
	origin       string
	remove, add  []string
	createExists bool // a create: a hostname already there with this origin is fine
}

// customChangeOf returns what a change of an A or CNAME record set asks of its custom hostnames.
func customChangeOf(ci int, c change, old *endpoint.Endpoint) (customChange, bool) {
	if !slices.Contains(customTypes, c.ep.RecordType) {
		return customChange{}, false
	}
	hosts := func(e *endpoint.Endpoint) []string {
		if e == nil {
			return nil
		}
		v, _ := e.GetProviderSpecific(propCustomHostname)
		return customHostnamesOf(v)
	}
	cc := customChange{change: ci, origin: c.ep.DNSName}
	switch c.action {
	case provider.ActionDelete:
		cc.remove = hosts(c.ep)
	case provider.ActionCreate:
		cc.add, cc.createExists = hosts(c.ep), true
	default:
		before, after := hosts(old), hosts(c.ep)
		for _, h := range before {
			if !slices.Contains(after, h) {
				cc.remove = append(cc.remove, h)
			}
		}
		for _, h := range after {
			if !slices.Contains(before, h) {
				cc.add = append(cc.add, h)
			}
		}
		cc.createExists = true
	}
	return cc, len(cc.remove)+len(cc.add) > 0
}

// applyCustom deletes, then creates, the custom hostnames the zone's applied changes ask for (deletes
// first, so a hostname can move from one record to another in one sync). A refusal is reported on its
// change; another failure is returned.
func (p *Provider) applyCustom(ctx context.Context, z zone, ccs []customChange, refused func(int, error)) error {
	if len(ccs) == 0 {
		return nil
	}
	current, err := p.customState(ctx, z)
	if err != nil {
		return err
	}
	for _, cc := range ccs {
		for _, h := range cc.remove {
			have, ok := current[h]
			if !ok || have.origin != cc.origin {
				continue // gone already, or another record's: not this change's to delete
			}
			var params custom_hostnames.CustomHostnameDeleteParams
			params.ZoneID.Value, params.ZoneID.Present = z.id, true
			_, err := p.client.CustomHostnames.Delete(ctx, have.id, params)
			if err = describeError(err); err != nil && !notFound(err) {
				if !refusal(err) {
					return err
				}
				refused(cc.change, fmt.Errorf("custom hostname %s: %w", h, err))
				continue
			}
			delete(current, h)
		}
	}
	for _, cc := range ccs {
		for _, h := range cc.add {
			if have, ok := current[h]; ok {
				if have.origin != cc.origin {
					refused(cc.change, fmt.Errorf("custom hostname %s already exists with custom origin %s; zonekeeper does not take it over", h, have.origin))
				}
				continue
			}
			res, err := p.client.CustomHostnames.New(ctx, p.customParams(z, h), option.WithJSONSet("custom_origin_server", cc.origin))
			if err = describeError(err); err != nil {
				if !refusal(err) {
					return err
				}
				refused(cc.change, fmt.Errorf("custom hostname %s: %w", h, err))
				continue
			}
			current[h] = customHostname{id: res.ID, origin: cc.origin}
		}
	}
	return nil
}

// customParams is a new custom hostname as external-dns v0.23 creates it.
func (p *Provider) customParams(z zone, hostname string) custom_hostnames.CustomHostnameNewParams {
	var settings custom_hostnames.CustomHostnameNewParamsSSLSettings
	settings.MinTLSVersion.Value = custom_hostnames.CustomHostnameNewParamsSSLSettingsMinTLSVersion(p.cfg.CustomHostnamesMinTLSVersion)
	settings.MinTLSVersion.Present = true
	var ssl custom_hostnames.CustomHostnameNewParamsSSL
	ssl.Method.Value, ssl.Method.Present = custom_hostnames.DCVMethodHTTP, true
	ssl.Type.Value, ssl.Type.Present = custom_hostnames.DomainValidationTypeDv, true
	ssl.BundleMethod.Value, ssl.BundleMethod.Present = custom_hostnames.BundleMethodUbiquitous, true
	ssl.Settings.Value, ssl.Settings.Present = settings, true
	if ca := p.cfg.CustomHostnamesCertificateAuthority; ca != "" && ca != "none" {
		ssl.CertificateAuthority.Value, ssl.CertificateAuthority.Present = custom_hostnames.CertificateCA(ca), true
	}
	var params custom_hostnames.CustomHostnameNewParams
	params.ZoneID.Value, params.ZoneID.Present = z.id, true
	params.Hostname.Value, params.Hostname.Present = hostname, true
	params.SSL.Value, params.SSL.Present = ssl, true
	return params
}

// customState returns the zone's custom hostnames as last listed or written.
func (p *Provider) customState(ctx context.Context, z zone) (map[string]customHostname, error) {
	p.mu.Lock()
	m, ok := p.customByZone[z.id]
	p.mu.Unlock()
	if ok {
		return m, nil
	}
	m, err := p.listCustom(ctx, z)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	if p.customByZone == nil {
		p.customByZone = map[string]map[string]customHostname{}
	}
	p.customByZone[z.id] = m
	p.mu.Unlock()
	return m, nil
}
