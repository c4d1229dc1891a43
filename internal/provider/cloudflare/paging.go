package cloudflare

import (
	"context"
	"strconv"

	"github.com/cloudflare/cloudflare-go/v7/packages/pagination"
)

// eachPage calls list for pages 1, 2, ... and visit for each item, until a page is short, or the
// last page by result_info.total_pages has been read. Unlike the SDK's auto-pager, it sends every
// page with the caller's context and asks for no empty page after the last one.
func eachPage[T any](ctx context.Context, perPage int, list func(ctx context.Context, page int) (*pagination.V4PagePaginationArray[T], error), visit func(T)) error {
	for page := 1; ; page++ {
		res, err := list(ctx, page)
		if err != nil {
			return err
		}
		for _, item := range res.Result {
			visit(item)
		}
		if len(res.Result) == 0 || len(res.Result) < perPage {
			return nil
		}
		if f, ok := res.ResultInfo.JSON.ExtraFields["total_pages"]; ok {
			if total, err := strconv.ParseFloat(f.Raw(), 64); err == nil && float64(page) >= total {
				return nil
			}
		}
	}
}
