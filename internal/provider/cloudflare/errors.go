package cloudflare

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/cloudflare/cloudflare-go/v7/dns"
)

// apiError is an answer of the API that is an error: its status and Cloudflare's codes and messages.
// Its text names neither the request's credentials nor its body.
type apiError struct {
	status int
	detail string
}

func (e *apiError) Error() string {
	if e.detail == "" {
		return fmt.Sprintf("Cloudflare answered HTTP %d %s", e.status, http.StatusText(e.status))
	}
	return fmt.Sprintf("Cloudflare answered HTTP %d: %s", e.status, e.detail)
}

// describeError turns an SDK error into an apiError (status, codes and messages); other errors pass.
func describeError(err error) error {
	var ce *dns.Error // the SDK's one error type, which every service package names
	if err == nil || !errors.As(err, &ce) {
		return err
	}
	status := ce.StatusCode
	if status == 0 && ce.Response != nil {
		status = ce.Response.StatusCode
	}
	var parts []string
	for _, d := range ce.Errors {
		parts = append(parts, fmt.Sprintf("%d %s", d.Code, d.Message))
	}
	return &apiError{status: status, detail: strings.Join(parts, "; ")}
}

// refusal reports whether err is the API refusing the records sent (a 4xx other than 401, 403 and
// 429): the request's content is at fault, not the account, the budget or the service.
func refusal(err error) bool {
	var ae *apiError
	if !errors.As(err, &ae) {
		return false
	}
	switch ae.status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusTooManyRequests, http.StatusRequestTimeout:
		return false
	}
	return ae.status >= 400 && ae.status < 500
}

// notFound reports whether err says that the record addressed does not exist.
func notFound(err error) bool {
	var ae *apiError
	return errors.As(err, &ae) && ae.status == http.StatusNotFound
}
