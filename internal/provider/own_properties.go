package provider

import (
	"context"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// OwnPropertiesOnly wraps the provider of a kind that reads the properties reads (Kind.Properties):
// the desired endpoints lose every provider-specific property the kind does not read before the
// provider adjusts them, as external-dns's source post-processor keeps only "<--provider>/" properties
// (and alias, which zonekeeper keeps only for the kinds that read it: Route 53 and a webhook's server).
// Sources copy every aws-, cloudflare-, coredns- ... annotation to a property, and alias, whichever
// kind runs, and a provider that does not read one lists the record without it: without the drop, a
// record with cloudflare/proxied=true or alias=true published by Cloud DNS was rewritten, with its
// ownership TXT, after every listing. It is per view, not in the shared source, because two views can publish one source through
// two kinds (CoreDNS inside, Cloudflare outside).
func OwnPropertiesOnly(p Provider, reads []string) Provider {
	return &ownPropertiesOnly{Wrapped: Wrapped{Provider: p}, reads: reads}
}

type ownPropertiesOnly struct {
	Wrapped
	reads []string
}

// AdjustEndpoints drops the foreign properties, then forwards. The controller and the TXT registry
// (comparing a TXT's properties) both adjust through it, so the drop is in one place.
func (w *ownPropertiesOnly) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	return w.Wrapped.AdjustEndpoints(ctx, WithoutForeignProperties(eps, w.reads))
}

// ListsExactlyWhatItWrote forwards ExactWriter (which Wrapped does not): writes pass through unchanged.
func (w *ownPropertiesOnly) ListsExactlyWhatItWrote() bool {
	x, ok := w.Provider.(ExactWriter)
	return ok && x.ListsExactlyWhatItWrote()
}

// WithoutForeignProperties returns eps with the provider-specific properties the patterns
// (Kind.Properties, matched by ReadsProperty) do not take removed. An endpoint that loses one is copied; the others, and the slice when none
// does, are returned as they are, so that a large idle desired set costs no allocation.
func WithoutForeignProperties(eps []*endpoint.Endpoint, reads []string) []*endpoint.Endpoint {
	var out []*endpoint.Endpoint
	for i, e := range eps {
		kept, dropped := ownProperties(e.ProviderSpecific, reads)
		if !dropped {
			if out != nil {
				out = append(out, e)
			}
			continue
		}
		if out == nil {
			out = make([]*endpoint.Endpoint, i, len(eps))
			copy(out, eps[:i])
		}
		c := *e
		c.ProviderSpecific = kept
		out = append(out, &c)
	}
	if out == nil {
		return eps
	}
	return out
}

// ownProperties returns the properties the patterns take, and whether any was left out; the
// argument is not modified.
func ownProperties(in endpoint.ProviderSpecific, reads []string) (endpoint.ProviderSpecific, bool) {
	for i, p := range in {
		if ReadsProperty(reads, p.Name) {
			continue
		}
		kept := append(endpoint.ProviderSpecific(nil), in[:i]...)
		for _, q := range in[i+1:] {
			if ReadsProperty(reads, q.Name) {
				kept = append(kept, q)
			}
		}
		return kept, true
	}
	return in, false
}
