package aws

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/service/route53"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// relistedZone is what the last paced relisting of a zone read (relistAll): the digest of each page's
// body, in order, and the listing version once that relisting was stored, with the zone's number of
// cached sets then. While the version has not moved (every change to any zone's cached contents moves
// it: no write patched a zone, nothing was listed, dropped or invalidated since), the cache holds
// exactly what those pages said; a page whose body has the same digest again says the same, and its
// record sets need not be decoded (issue 15: the SDK's XML decoding was about three quarters of an
// idle relisting). The contents object is not kept: it would hold a replaced zone's sets in memory.
type relistedZone struct {
	version uint64
	sets    int // a second guard beside the version
	pages   [][sha256.Size]byte
}

// relistBook holds, per zone id, what the last relisting read. Guarded by opMu (relistAll runs under it).
type relistBook struct {
	zones map[string]relistedZone
	// decodedPages counts the pages whose record sets a relisting decoded, skippedPages those it did
	// not need to; for tests and benchmarks.
	decodedPages, skippedPages int
}

// remember keeps, for the next relisting, the pages read of each zone of zs now cached as contents,
// at version (the version once this relisting is stored); the other zones are forgotten.
func (b *relistBook) remember(zs []zone, contents map[string]*zoneContents, pages map[string][][sha256.Size]byte, version uint64) {
	b.zones = map[string]relistedZone{}
	for _, z := range zs {
		if c, ps := contents[z.id], pages[z.id]; c != nil && ps != nil {
			b.zones[z.id] = relistedZone{version: version, sets: c.count(), pages: ps}
		}
	}
}

// pageDigest is a Deserialize middleware for one ListResourceRecordSets call of a relisting: it reads
// the raw body of a successful answer, takes its SHA-256, and when that equals expect (the same page
// of the last relisting, whose sets the cache holds) hands the SDK the body without its record sets,
// so that only the paging fields (IsTruncated, NextRecordName, ...) are decoded. Every page is still
// fetched from Route 53: a change anywhere in it changes the digest, and the page is decoded.
type pageDigest struct {
	// buf holds the body read; one per relisting of a zone, reused page after page (the SDK has
	// decoded a page, copying what it keeps, before the next is asked for).
	buf     *bytes.Buffer
	expect  *[sha256.Size]byte // nil: no page of the last relisting to compare with
	got     [sha256.Size]byte
	read    bool // got is set: the answer was a 200 whose body was read
	skipped bool // the record sets were cut from the body handed to the SDK
}

// option adds the middleware to one call.
func (d *pageDigest) option(o *route53.Options) {
	o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
		// After: innermost in the Deserialize step, so it sees the raw answer before the SDK's
		// deserializer reads it (each retry attempt passes through it again).
		return stack.Deserialize.Add(middleware.DeserializeMiddlewareFunc("ZonekeeperRelistPageDigest", d.handle), middleware.After)
	})
}

func (d *pageDigest) handle(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (middleware.DeserializeOutput, middleware.Metadata, error) {
	d.read, d.skipped = false, false
	out, md, err := next.HandleDeserialize(ctx, in)
	if err != nil {
		return out, md, err
	}
	resp, ok := out.RawResponse.(*smithyhttp.Response)
	if !ok || resp.StatusCode != http.StatusOK || resp.Body == nil {
		return out, md, err
	}
	buf := d.buf
	buf.Reset()
	if n := resp.ContentLength; n > 0 && n < 1<<26 {
		buf.Grow(int(n) + bytes.MinRead) // ReadFrom wants MinRead free at the end
	}
	_, err = buf.ReadFrom(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return out, md, err
	}
	body := buf.Bytes()
	d.got, d.read = sha256.Sum256(body), true
	if d.expect != nil && *d.expect == d.got {
		if cut, ok := withoutRecordSets(body); ok {
			body, d.skipped = cut, true
		}
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return out, md, nil
}

// withoutRecordSets is a ListResourceRecordSets answer with the content of its ResourceRecordSets
// element removed. The element's tags cannot occur inside it (a value's '<' is escaped), so the
// first opening and the last closing tag delimit it; ok is false when either is missing.
func withoutRecordSets(body []byte) ([]byte, bool) {
	const open, closing = "<ResourceRecordSets>", "</ResourceRecordSets>"
	i := bytes.Index(body, []byte(open))
	j := bytes.LastIndex(body, []byte(closing))
	if i < 0 || j < i+len(open) {
		return nil, false
	}
	return append(body[:i+len(open)], body[j:]...), true // in place: the body is ours
}

// relistZone lists zone z for relistAll. When the last relisting's pages of z still describe its
// cached contents (last is usable), pages with the same digest are not decoded; when every page
// matches, in the same number, z holds what is cached (same, nothing decoded). Otherwise it returns
// z's fresh contents: decoded from the pages when none was skipped, or, when some were skipped and
// another differs, from a listing made again that decodes every page (the skipped pages' sets were not
// decoded; this costs that zone's calls once more, only when the zone changed). pages are the digests
// to keep for the next relisting.
func (p *Provider) relistZone(ctx context.Context, z zone, last *relistedZone) (fresh *zoneContents, same bool, pages [][sha256.Size]byte, err error) {
	c := newZoneContents()
	zctx := withZone(ctx, z)
	paginator := route53.NewListResourceRecordSetsPaginator(z.api, &route53.ListResourceRecordSetsInput{
		HostedZoneId: ptr(z.id), MaxItems: ptr(int32(listPageSize)),
	})
	skipped := 0
	var buf bytes.Buffer
	for paginator.HasMorePages() {
		d := &pageDigest{buf: &buf}
		if k := len(pages); last != nil && k < len(last.pages) && skipped == k {
			d.expect = &last.pages[k] // only while every page before matched
		}
		page, err := paginator.NextPage(zctx, d.option)
		if err != nil {
			return nil, false, nil, err
		}
		if !d.read { // cannot happen with the SDK's stack; a missing digest is never taken for a match
			return nil, false, nil, fmt.Errorf("listing record sets of zone %s: the relisting did not see a page's answer", z)
		}
		pages = append(pages, d.got)
		if d.skipped {
			skipped++
			p.relists.skippedPages++
			continue
		}
		p.relists.decodedPages++
		for i := range page.ResourceRecordSets {
			c.put(&page.ResourceRecordSets[i])
		}
	}
	switch {
	case last != nil && skipped == len(pages) && skipped == len(last.pages):
		return nil, true, pages, nil
	case skipped > 0:
		return p.relistZone(ctx, z, nil) // decodes every page: nothing to compare with
	}
	c.reindex()
	return c, false, pages, nil
}
